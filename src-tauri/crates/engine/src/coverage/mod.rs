//! Route coverage (`crewgraph test`): whether every arrow of a crew's drawing can be
//! taken by a run, and how often real runs take them.
//!
//! Data flows in this order:
//!
//! 1. [`mod@plan`] walks the crew's routes (its graph and its strategy's own decisions)
//!    and writes one Simulate [`plan::Scenario`] per arrow — each agent's replies,
//!    a router's decisions, the person's answers at pauses — that takes the arrow
//!    and then finishes; an arrow no run can take is [`plan::Unreachable`], with
//!    why in words (replies are written by [`replies`]);
//! 2. the host runs each scenario with the scripted model (nothing is called), or,
//!    with a [`probes`] file, each request on a real model;
//! 3. [`mod@tally`] reads each run's events: the arrows it took (found through
//!    [`arrows`]), each agent's replies without a signal, loops, transfers, cost.
//!
//! ```
//! use crewgraph_engine::{coverage, graph::CrewGraph, load::load_str};
//!
//! let crew = load_str("c.yaml", "entry_point: a\nagents: [{id: a}, {id: b, is_terminal: true}]\n\
//!     routing:\n  signals:\n    a: [{signal: '[NEXT]', target: b}]\n").crew.unwrap();
//! let view = CrewGraph::build(&crew).view(&crew);
//! let plan = coverage::plan::plan(&crew, &view);
//! assert!(plan.unreachable.is_empty());
//! let next = &plan.scenarios[0];
//! assert_eq!(next.arrows, ["rule:a:0:agent:b", "terminal:b:end"]);
//! assert!(next.replies[0].1[0].ends_with("[NEXT]"));
//! ```

pub mod arrows;
pub mod plan;
pub mod probes;
pub mod replies;
pub mod tally;

pub use plan::{plan, Plan, Scenario, Unreachable};
pub use probes::{read_probes, Probe, ProbeError};
pub use tally::{tally, Tally};
