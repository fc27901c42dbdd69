//! Integration tests of `crewgraph-engine`: one test binary, one module per concept.
//!
//! They drive the engine only through its public API, the way the CLI and the window
//! do: [`crewgraph_engine::load_path`] / [`crewgraph_engine::load_str`], the
//! [`crewgraph_engine::Crew`] they build, its matcher and its graph.
//!
//! - [`examples`]: every crew in `crews/` (discovered at test time) loads cleanly and
//!   draws; the Vietnamese, Go-directory, pattern and scoring crews keep what makes them special.
//! - [`bad_input`]: each bad input of issue 2 gets one clear error at the right place.
//! - [`validation`]: each error of DESIGN.md §3 with its exact wording and position,
//!   and all errors of a file reported together.
//! - [`warnings`]: the warnings of DESIGN.md §3 and the agent behaviours that silence them.
//! - [`registry`]: strict and implicit registries, built-ins, shadowing, pattern signals.
//! - [`directories`]: the Go engine's crew directories and their agent files.
//! - [`matching`]: the three matching levels of DESIGN.md §3 and one-pass scanning.
//! - [`matching_reference`]: `match_signal` against a naive reference written from
//!   DESIGN.md §3's words, on random replies.
//! - [`graph`]: the crew graph's view model and where problems are badged.
//! - [`import_crewai`]: CrewAI projects made into crews, and what cannot come along said where it is.
//! - [`leases`]: legs of one run under two executors — one refused, saying who
//!   holds the run until when (an interrupted run, and two resumes of one paused
//!   run); a dead executor's run taken over; a leg whose lease was taken over
//!   stopping without another step.
//! - [`queued`]: runs opened by one process and executed by another — the same
//!   stored trace as one process, breakpoints released, stale entries refused, a
//!   dead worker's leg taken over.
//! - [`run_loop`]: runs paused and resumed, stopped mid-reply and resumed, and
//!   cancelled, their stored traces snapshot-tested; [`model`] is their
//!   deterministic model and [`bench`] the wiring they share with [`leases`].
//!
//! Fixtures live in `tests/fixtures/`, each named after what it exercises; big or
//! binary inputs are generated in temporary directories at test time.

mod bad_input;
mod bench;
mod directories;
mod examples;
mod graph;
mod import_crewai;
mod leases;
mod matching;
mod matching_reference;
mod model;
mod queued;
mod registry;
mod run_loop;
mod support;
mod validation;
mod warnings;
