//! The route-coverage report (`crewgraph test`, `test_crew`): per arrow of the crew's
//! drawing how often the runs took it (and, when no run can, why), per agent its
//! replies and how many lacked a signal, each Simulate scenario or probe run with how
//! it ended, and whether the crew passed. One JSON document; the CLI prints it as
//! tables, the window colours the arrows by it.
//!
//! A crew passes when every arrow was taken, and every scenario took the arrow it was
//! for and ended as planned (or, with probes, every expectation was met).

use crewgraph_engine::coverage::{Plan, Tally};
use crewgraph_engine::graph::{EdgeKind, GraphView};
use crewgraph_engine::run::RunStatus;
use crewgraph_engine::Crew;
use serde::Serialize;
use ts_rs::TS;

/// What was tried: Simulate scenarios (no model called) or probes on a real model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum TestMode {
    Scenarios,
    Probes,
}

/// A crew's route coverage.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct CrewTest {
    /// The crew's name.
    pub crew: String,
    pub mode: TestMode,
    /// Every arrow was taken, and every scenario ended as planned (every probe's
    /// expectation was met).
    pub passed: bool,
    /// The runs made.
    pub runs: u32,
    /// Every arrow of the drawing, in drawing order.
    pub arrows: Vec<ArrowCoverage>,
    /// Every agent, in crew order.
    pub agents: Vec<AgentCoverage>,
    /// Simulate mode: one per arrow a run can take, in drawing order.
    pub scenarios: Vec<ScenarioResult>,
    /// With probes: one per run of a probe, in file order.
    pub probes: Vec<ProbeResult>,
    /// Transfers per run, on average.
    pub handoffs_per_run: f64,
    /// Loops noticed, in all runs.
    pub loops: u32,
    /// US dollars per run, on average, when the models' prices are known.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_per_run: Option<f64>,
    /// Tokens read and written per run, on average (0 when no provider said).
    pub tokens_per_run: f64,
    /// Moves of the runs that no arrow draws (the automatic fallback to the next agent).
    pub unshown_moves: u32,
    /// What the test did not try, in words (tools are not called in Simulate).
    pub notes: Vec<String>,
}

/// One arrow, and how often the runs took it.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ArrowCoverage {
    /// Its id in the drawing (`GraphView`'s edges).
    pub id: String,
    /// Where it starts and ends, as people see them: "Teacher", "exam_round", "End".
    pub from: String,
    pub to: String,
    /// Its signal, or its word ("otherwise", "then", "assigns").
    pub label: String,
    pub kind: EdgeKind,
    /// How often it was taken, in all runs.
    pub taken: u32,
    /// How many runs took it.
    pub runs: u32,
    /// Why no run can take it (Simulate mode); None when a scenario could be planned.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
}

/// One agent's part in the runs.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct AgentCoverage {
    pub agent: String,
    pub name: String,
    /// Some run gave it work.
    pub reached: bool,
    /// Why no run can give it work (Simulate mode).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreached: Option<String>,
    /// Its replies, in all runs.
    pub replies: u32,
    /// Of its replies under the `signals` strategy (not inside a group), those with
    /// none of its signals.
    pub without_signal: u32,
}

/// One Simulate scenario and how its run went.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ScenarioResult {
    /// The arrow it is for.
    pub arrow: String,
    pub input: String,
    /// How it should end; None when the crew cannot finish after the arrow.
    pub expected: Option<RunStatus>,
    /// How its run ended.
    pub status: RunStatus,
    /// The run took the arrow.
    pub took_arrow: bool,
    pub passed: bool,
    /// What went wrong, in words.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    pub handoffs: u32,
    /// Its replies as a Simulate script (`crewgraph run --script`), with its input
    /// and the person's answers in a comment.
    pub script: String,
}

/// One run of a probe.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ProbeResult {
    pub input: String,
    /// Where the probe is: `file:line:col`.
    pub place: String,
    /// Which of its runs (from 1).
    pub attempt: u32,
    pub status: RunStatus,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_agent: Option<String>,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_status: Option<RunStatus>,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_agent: Option<String>,
    pub passed: bool,
    /// What went wrong, in words (an expectation missed, the run's error).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    pub handoffs: u32,
    pub loops: u32,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Tokens read and written (0 when the provider did not say).
    pub tokens: u32,
}

/// The runs' tallies folded into arrows, agents and averages.
pub(crate) struct Totals {
    pub arrows: Vec<ArrowCoverage>,
    pub agents: Vec<AgentCoverage>,
    pub handoffs_per_run: f64,
    pub loops: u32,
    pub cost_per_run: Option<f64>,
    pub tokens_per_run: f64,
    pub unshown_moves: u32,
}

/// Folds `tallies` (one per run) over `crew`'s drawing; `plan` says why arrows and
/// agents no scenario reaches are out of reach (Simulate mode).
pub(crate) fn totals(crew: &Crew, view: &GraphView, tallies: &[Tally], plan: Option<&Plan>) -> Totals {
    let name = |node: &str| view.nodes.iter().find(|n| n.id == node).map_or_else(|| node.to_owned(), |n| n.label.clone());
    let arrows = view
        .edges
        .iter()
        .map(|edge| ArrowCoverage {
            id: edge.id.clone(),
            from: name(&edge.source),
            to: name(&edge.target),
            label: edge.label.clone(),
            kind: edge.kind,
            taken: tallies.iter().map(|t| t.taken(&edge.id)).sum(),
            runs: tallies.iter().filter(|t| t.taken(&edge.id) > 0).count() as u32,
            unreachable: plan.and_then(|p| p.unreachable.iter().find(|u| u.arrow == edge.id)).map(|u| u.reason.clone()),
        })
        .collect();
    let agents = crew
        .agents
        .iter()
        .map(|agent| {
            let replies =
                tallies.iter().filter_map(|t| t.replies.get(&agent.id)).fold((0, 0), |(r, w), x| (r + x.replies, w + x.without_signal));
            let unreached = plan.and_then(|p| p.unreached_agents.iter().find(|(a, _)| *a == agent.id)).map(|(_, why)| why.clone());
            // The supervisor of `scoring` makes no model call: it works when it routes.
            let routes = agent.id == crew.entry_point && !tallies.is_empty();
            AgentCoverage {
                agent: agent.id.to_string(),
                name: agent.name.clone(),
                reached: replies.0 > 0 || routes,
                unreached,
                replies: replies.0,
                without_signal: replies.1,
            }
        })
        .collect();
    let runs = tallies.len().max(1) as f64;
    let priced: Vec<f64> = tallies.iter().filter_map(|t| t.usage.and_then(|u| u.cost_usd)).collect();
    let tokens: u64 = tallies.iter().filter_map(|t| t.usage).map(|u| u64::from(u.input_tokens) + u64::from(u.output_tokens)).sum();
    Totals {
        arrows,
        agents,
        handoffs_per_run: tallies.iter().map(|t| f64::from(t.handoffs)).sum::<f64>() / runs,
        loops: tallies.iter().map(|t| t.loops).sum(),
        cost_per_run: (!priced.is_empty()).then(|| priced.iter().sum::<f64>() / runs),
        tokens_per_run: tokens as f64 / runs,
        unshown_moves: tallies.iter().map(|t| t.unshown_moves).sum(),
    }
}
