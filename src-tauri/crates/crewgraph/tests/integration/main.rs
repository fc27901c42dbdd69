//! Tests of the `crewgraph` command line (DESIGN.md §10): the exact output shapes
//! and exit codes of `validate` and both forms of `match`, and `--help`; and of runs
//! (DESIGN.md §4): every example crew's trace, one test per rule of the loop. One
//! test binary; the CLI modules run the real binary (`assert_cmd`) the way a user or
//! a script would, the run modules drive the API and the engine with scripted replies.
//! End to end through the binary (`e2e` helpers): crash safety under SIGKILL
//! (`crash`), Ctrl-C (`interrupt`), bad scripts, crews and resumes (`bad_runs`), bad
//! databases (`bad_db`) and the JSON shapes of run, replay and runs (`shapes`).
//! Real models (`models`): runs on the local model, `crewgraph models`, API keys; a
//! person's first run (`first_run`): the examples on the local model to a final status.
//! Route coverage (`coverage`): `crewgraph test` on every example crew, broken
//! probes files, probes on the local model.
//! Routing (`routing`): `crewgraph route` and runtime agents (`crewgraph agents`); the
//! `RouteDecider` conformance suite both deciders pass (`deciders`).
//! Editing (`editor`): the window editor's open, check, save and export through the API;
//! a crew's revisions side by side (`revisions`): history, comparison, restore, the runs of each.
//! Recordings (`recording`): a run exported to one JSON file, read back, and broken ones refused.
//! Live runs (`live_and_stored`): a run that is not live reads as its last leg left it.
//! PostgreSQL (`postgres`): the API on one database shared by two APIs, on a real
//! server the test starts (issue 20); a cluster (`workers`): an API node and
//! `crewgraph worker` processes on a real PostgreSQL and Redis — runs executed once,
//! a killed worker's taken over, Redis and PostgreSQL restarted under load.
//! The HTTP server (`serve`): every route of `crewgraph serve`, its server-sent
//! events, its security, and the binary's start and stop.
//! Callers (`callers`): crews called as MCP tools and OpenAI models by the official
//! Python SDKs, over stdio and HTTP.
//! Tools (`tools`, `approvals`): runs calling real MCP servers, and a person allowing
//! a call; the file desk example doing its work on a copy of itself (`file_desk`).
//! Fuzzing (`fuzz_corpora`): the fuzz targets' corpora and regressions (`fuzz/`).
//! Imports (`import_crewai`): `crewgraph import crewai` on CrewAI projects.
//! Traces (`otel_phoenix`): runs exported over OTLP, read back from a real Phoenix.
//! Probes (issue 23): runs and resumes killed at random moments (`soak`), a provider
//! failing at random (`chaos`), and keys in every place they can go (`secrets`).
//!
//! Bad crew files come from the engine's fixtures (`../engine/tests/fixtures`),
//! valid ones from the repository's `crews/`; generated inputs go to temp dirs.

mod approvals;
mod bad_db;
mod bad_runs;
mod batches;
mod breakpoints;
mod callers;
mod chaos;
mod coverage;
mod crash;
mod deciders;
mod e2e;
mod editor;
mod file_desk;
mod first_run;
mod fork;
mod fuzz_corpora;
mod gatekeeper;
mod help;
mod import_crewai;
mod interrupt;
mod live_and_stored;
mod matching;
mod models;
mod otel_phoenix;
mod postgres;
mod recording;
mod revisions;
mod route_missed;
mod routed;
mod routing;
mod rules;
mod runner;
mod secrets;
mod seen;
mod serve;
mod settings;
mod shapes;
mod soak;
mod support;
mod tools;
mod traces;
mod validate;
mod workers;
