//! # crewgraph-engine
//!
//! The heart of Crewgraph, free of any window, database or network code: it reads
//! crew files, validates them, matches signals in replies, builds the crew graph
//! and runs a crew. What a run needs from the world comes in through the traits its
//! hosts implement ([`run`]): [`run::LlmClient`] (the models, `crewgraph-llm`),
//! [`run::RunStore`] (persistence, `crewgraph-store`; [`run::MemoryStore`] here for
//! tests), [`run::EventSink`] (live events), [`run::Clock`] and [`run::IdSource`]
//! (time and ids, injected so that event traces are byte-stable).
//!
//! Data flows in this order:
//!
//! 1. [`load`] reads a crew file or a Go-engine crew directory into the serde-only
//!    [`mod@file`] model, keeping every value's line and column;
//! 2. [`validate`] turns it into a [`crew::Crew`]: ids resolved, the [`signal`]
//!    registry built and compiled into a [`signal::SignalMatcher`], and every
//!    problem reported as a [`diagnostic::Diagnostic`] with DESIGN.md §3's wording;
//! 3. [`graph`] draws the crew as a petgraph graph and a view model for the window;
//! 4. [`run`] runs it ([`run::start_run`], [`run::resume_run`]): each turn calls the
//!    agent's model, matches the signals in its reply, lets [`routing`] choose who
//!    speaks next (the signals' rules, the supervisor's scores, or a
//!    [`routing::decider::RouteDecider`] for the `llm` and `gatekeeper`
//!    strategies), and stores the step before the next begins; everything it does
//!    is a [`run::RunEvent`].
//!
//! [`coverage`] asks of a crew whether a run can take each of its arrows (a
//! Simulate scenario per arrow) and reads how often runs took them.
//!
//! [`import`] makes crews from other tools' projects: a CrewAI project's
//! `agents.yaml` and `tasks.yaml` become a crew file, with what cannot come along
//! said at its `file:line:col`.
//!
//! The editor goes the other way: [`file::spec`] holds a crew as JSON for the
//! window and writes it back as YAML, checked by the same loader
//! ([`load::load_spec_value`]).
//!
//! ```
//! use crewgraph_engine::{graph::CrewGraph, load::load_str, signal::MatchLevel};
//!
//! let loaded = load_str("exam.yaml", r#"
//! name: Exam
//! entry_point: teacher
//! agents:
//!   - id: teacher
//!   - id: student
//! routing:
//!   signals:
//!     teacher:
//!       - { signal: "[QUESTION]", target: student }
//!       - { signal: "[END_EXAM]", target: "" }
//!     student:
//!       - { signal: "[ANSWER]", target: teacher }
//! "#);
//! assert!(loaded.is_valid(), "{:#?}", loaded.diagnostics);
//! let crew = loaded.crew.unwrap();
//!
//! let found = crew.matcher.scan("Here is my answer: 3/4 [answer]");
//! let answer = crew.signals.lookup("[ANSWER]").unwrap();
//! assert_eq!(found.get(answer).unwrap().level, MatchLevel::CaseInsensitive);
//!
//! let view = CrewGraph::build(&crew).view(&crew);
//! assert!(view.edges.iter().any(|e| e.label == "[QUESTION]"));
//! ```

pub mod coverage;
pub mod crew;
pub mod diagnostic;
pub mod file;
pub mod graph;
pub mod ids;
pub mod import;
pub mod load;
pub mod report;
pub mod routing;
pub mod run;
pub mod signal;
pub mod tool_server;
pub mod validate;
pub mod words;

pub use crew::{Crew, ModelSpec};
pub use diagnostic::{Diagnostic, Problem, Severity};
pub use ids::{AgentId, GroupId, RunId, SignalName};
pub use load::{load_path, load_str, Loaded};
