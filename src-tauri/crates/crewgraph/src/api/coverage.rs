//! Route coverage through the API ([`Api::test_crew`]: `crewgraph test`,
//! `POST /crews/{crew}/test`, the window's Test tab), on the crew as a run takes it
//! (its runtime agents and the app's tool servers included).
//!
//! Without probes: the engine plans one Simulate scenario per arrow
//! ([`crewgraph_engine::coverage::plan`]); each runs here with the scripted model and
//! (under `gatekeeper`) the scripted gatekeeper, in a store of its own in memory,
//! answering its pauses; no model is called and no tool server is started (agents
//! are offered their tools by name, and a call would fail: scenarios make none).
//! The arrows are counted from each run's events, never taken from the plan.
//!
//! With probes: each request runs on the agents' models (or `model` for all), as
//! `crewgraph run` would, but in a store in memory — a test's runs are not kept.
//! Either way the runs' events are tallied ([`crewgraph_engine::coverage::tally`])
//! into one [`CrewTest`].

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use crewgraph_engine::coverage::{self, Probe, Scenario, Tally};
use crewgraph_engine::crew::{Strategy, ToolServer};
use crewgraph_engine::graph::{CrewGraph, GraphView};
use crewgraph_engine::routing::decider::RouteDecider;
use crewgraph_engine::routing::llm::ROUTER_AGENT;
use crewgraph_engine::run::{
    resume_run, start_run_for, Approvals, CrewSource, MemoryStore, NullSink, RunDeps, RunStatus, RunStore, SequentialIds, ServerTool,
    SystemClock, ToolHost, ToolOutput, ToolProgress,
};
use crewgraph_engine::tool_server::server_entry;
use crewgraph_engine::Crew;
use crewgraph_llm::scripted::GATEKEEPER;
use crewgraph_llm::{Script, ScriptedLlm};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::coverage_report::{totals, CrewTest, ProbeResult, ScenarioResult, TestMode};
use super::crews::crew_key;
use super::scripted_gatekeeper::ScriptedGatekeeper;
use super::{Api, ApiError, ApiErrorCode, RunOptions};

/// Probes to run instead of the Simulate scenarios: a probes file's text, and the
/// name its problems are reported under.
#[derive(Clone, Debug)]
pub struct ProbesText {
    pub name: String,
    pub text: String,
}

impl Api {
    /// The route coverage of the crew at `path`: its Simulate scenarios, or with
    /// `probes` each probe on a real model (`model` for every agent, else their own).
    pub async fn test_crew(&self, path: &Path, probes: Option<&ProbesText>, model: Option<&str>) -> Result<CrewTest, ApiError> {
        let (crew, source) = self.crew_to_test(path).await?;
        let view = CrewGraph::build(&crew).view(&crew);
        match probes {
            None => Ok(scenarios(&crew, &source, &view).await),
            Some(probes) => {
                let probes = coverage::read_probes(&probes.name, &probes.text, &crew).map_err(|errors| {
                    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    let message = match lines.as_slice() {
                        [one] => one.clone(),
                        many => format!("the probes file has {} problems:\n{}", many.len(), many.join("\n")),
                    };
                    ApiError::new(ApiErrorCode::InvalidInput, message)
                })?;
                self.probes(path, &crew, &view, &probes, model).await
            }
        }
    }

    /// The crew at `path` as a run takes it: with its runtime agents and the app's
    /// tool servers; refused when it has errors.
    async fn crew_to_test(&self, path: &Path) -> Result<(Crew, CrewSource), ApiError> {
        let loaded = self.load_crew(path).await?;
        match (loaded.is_valid(), loaded.crew) {
            (true, Some(mut crew)) => {
                self.with_app_tool_servers(&mut crew).await?;
                Ok((crew, CrewSource { path: Some(crew_key(path)), fingerprint: String::new() }))
            }
            _ => {
                let errors: Vec<String> = loaded.diagnostics.iter().filter(|d| d.is_error()).map(ToString::to_string).collect();
                Err(ApiError::new(ApiErrorCode::InvalidCrew, format!("the crew has errors and cannot be tested:\n{}", errors.join("\n"))))
            }
        }
    }

    /// Runs every probe, each as often as it says, one after another.
    async fn probes(
        &self,
        path: &Path,
        crew: &Crew,
        view: &GraphView,
        probes: &[Probe],
        model: Option<&str>,
    ) -> Result<CrewTest, ApiError> {
        let api = self.clone().with_store(Arc::new(MemoryStore::new()));
        let options = RunOptions { model: model.map(str::to_owned), ..RunOptions::default() };
        let cancel = CancellationToken::new();
        let mut tallies = Vec::new();
        let mut results = Vec::new();
        for probe in probes {
            for attempt in 1..=probe.repeat {
                let outcome = api.start_run(path, &probe.input, &options, Arc::new(NullSink), &cancel).await?;
                let events = api.run_events(&outcome.run_id, None).await?;
                let tally = coverage::tally(crew, view, &events);
                results.push(probe_result(probe, attempt, &tally));
                tallies.push(tally);
            }
        }
        let totals = totals(crew, view, &tallies, None);
        let passed = results.iter().all(|r| r.passed) && totals.arrows.iter().all(|a| a.taken > 0);
        Ok(CrewTest {
            crew: crew.name.clone(),
            mode: TestMode::Probes,
            passed,
            runs: tallies.len() as u32,
            arrows: totals.arrows,
            agents: totals.agents,
            scenarios: Vec::new(),
            probes: results,
            handoffs_per_run: totals.handoffs_per_run,
            loops: totals.loops,
            cost_per_run: totals.cost_per_run,
            tokens_per_run: totals.tokens_per_run,
            unshown_moves: totals.unshown_moves,
            notes: Vec::new(),
        })
    }
}

/// How a probe's run went against what it expected.
fn probe_result(probe: &Probe, attempt: u32, tally: &Tally) -> ProbeResult {
    let status = tally.status.unwrap_or(RunStatus::Running);
    let final_agent = tally.final_agent.as_ref().map(ToString::to_string);
    let mut problems = Vec::new();
    if let Some(expected) = probe.status.filter(|s| *s != status) {
        problems.push(format!("it ended {}, not {}", status.as_str(), expected.as_str()));
    }
    if let Some(expected) = probe.final_agent.as_ref().filter(|a| final_agent.as_deref() != Some(a.as_str())) {
        problems.push(format!("{} had the last word, not {expected}", final_agent.as_deref().unwrap_or("nobody")));
    }
    if status == RunStatus::Failed {
        problems.push(format!("the run failed: {}", tally.error.as_deref().unwrap_or("no reason given")));
    }
    ProbeResult {
        input: probe.input.clone(),
        place: probe.location.to_string(),
        attempt,
        status,
        final_agent,
        expected_status: probe.status,
        expected_agent: probe.final_agent.as_ref().map(ToString::to_string),
        passed: problems.is_empty(),
        problem: (!problems.is_empty()).then(|| problems.join("; ")),
        handoffs: tally.handoffs,
        loops: tally.loops,
        cost_usd: tally.usage.and_then(|u| u.cost_usd),
        tokens: tally.usage.map_or(0, |u| u.input_tokens.saturating_add(u.output_tokens)),
    }
}

/// Plans the crew's scenarios, runs each, and reports.
async fn scenarios(crew: &Crew, source: &CrewSource, view: &GraphView) -> CrewTest {
    let plan = coverage::plan(crew, view);
    let mut tallies = Vec::new();
    let mut results = Vec::new();
    for scenario in &plan.scenarios {
        let (tally, result) = run_scenario(crew, source, view, scenario).await;
        tallies.push(tally);
        results.push(result);
    }
    let totals = totals(crew, view, &tallies, Some(&plan));
    let passed = results.iter().all(|r| r.passed) && totals.arrows.iter().all(|a| a.taken > 0);
    CrewTest {
        crew: crew.name.clone(),
        mode: TestMode::Scenarios,
        passed,
        runs: tallies.len() as u32,
        arrows: totals.arrows,
        agents: totals.agents,
        scenarios: results,
        probes: Vec::new(),
        handoffs_per_run: totals.handoffs_per_run,
        loops: totals.loops,
        cost_per_run: totals.cost_per_run,
        tokens_per_run: totals.tokens_per_run,
        unshown_moves: totals.unshown_moves,
        notes: tools_note(crew).into_iter().chain(asked_by_name(crew, &plan)).collect(),
    }
}

/// Under `scoring`: the specialists no request's words make the best match, whose
/// scenarios ask for them by name (`--agent`).
fn asked_by_name(crew: &Crew, plan: &coverage::Plan) -> Vec<String> {
    let name = |id: &crewgraph_engine::AgentId| crew.agent(id.as_str()).map_or_else(|| id.to_string(), |a| a.name.clone());
    let mut named: Vec<String> = plan.scenarios.iter().filter_map(|s| s.requested.as_ref()).map(name).collect();
    named.dedup();
    named
        .into_iter()
        .map(|agent| {
            format!("No request's words make {agent} the best match: its scenarios ask for it by name (as `crewgraph run --agent` does).")
        })
        .collect()
}

/// The scenarios' replies are scripted: the tools agents have are not tried.
fn tools_note(crew: &Crew) -> Option<String> {
    let with: Vec<&str> = crew.agents.iter().filter(|a| !a.tools.is_empty()).map(|a| a.name.as_str()).collect();
    match with.as_slice() {
        [] => None,
        [one] => Some(format!("{one} has tools; the scenarios' replies call none (probes on a model try them).")),
        [rest @ .., last] => {
            Some(format!("{} and {last} have tools; the scenarios' replies call none (probes on a model try them).", rest.join(", ")))
        }
    }
}

/// One scenario's run, start to end (its pauses answered), and how it went.
async fn run_scenario(crew: &Crew, source: &CrewSource, view: &GraphView, scenario: &Scenario) -> (Tally, ScenarioResult) {
    let text = script_text(crew, scenario);
    let failed = |problem: String| {
        let result = ScenarioResult {
            arrow: scenario.arrow.clone(),
            input: scenario.input.clone(),
            expected: scenario.ending.clone().ok(),
            status: RunStatus::Failed,
            took_arrow: false,
            passed: false,
            problem: Some(problem),
            handoffs: 0,
            script: text.clone(),
        };
        (Tally::default(), result)
    };
    let script = match Script::parse("scenario", &text) {
        Ok(script) => script,
        Err(error) => return failed(format!("its script does not read back (a defect): {error}")),
    };
    let store = Arc::new(MemoryStore::new());
    let gatekeeper = match crew.routing.strategy {
        Strategy::Gatekeeper => ScriptedGatekeeper::from_script(&script).map(|g| Arc::new(g) as Arc<dyn RouteDecider>),
        _ => None,
    };
    let deps = RunDeps {
        llm: Arc::new(ScriptedLlm::new(&script)),
        store: store.clone(),
        sink: Arc::new(NullSink),
        clock: Arc::new(SystemClock),
        ids: Arc::new(SequentialIds::default()),
        http: None,
        tool_host: Some(Arc::new(UncalledTools::of(crew))),
        approvals: Approvals::Nothing,
        notices: Vec::new(),
        gatekeeper,
        breaks: Default::default(),
        fork: None,
        executor: None,
    };
    let cancel = CancellationToken::new();
    let mut outcome = match start_run_for(crew, source, &scenario.input, scenario.requested.as_ref(), &deps, &cancel).await {
        Ok(outcome) => outcome,
        Err(error) => return failed(format!("its run could not start: {error}")),
    };
    for answer in &scenario.answers {
        if outcome.status != RunStatus::Paused {
            break;
        }
        outcome = match resume_run(crew, source, &outcome.run_id, Some(answer), &deps, &cancel).await {
            Ok(outcome) => outcome,
            Err(error) => return failed(format!("its run could not go on after a pause: {error}")),
        };
    }
    let events = match store.events(&outcome.run_id, None).await {
        Ok(events) => events,
        Err(error) => return failed(format!("its run's events cannot be read: {error}")),
    };
    let tally = coverage::tally(crew, view, &events);
    let took_arrow = tally.taken(&scenario.arrow) > 0;
    let mut problems = Vec::new();
    if !took_arrow {
        problems.push("its run did not take the arrow".to_owned());
    }
    match &scenario.ending {
        Ok(expected) if *expected != outcome.status => problems.push(format!(
            "it ended {} instead of {}{}",
            outcome.status.as_str(),
            expected.as_str(),
            outcome.error.as_deref().map(|e| format!(": {e}")).unwrap_or_default()
        )),
        Ok(_) => {}
        Err(why) => problems.push(format!("it cannot finish: {why} (it ended {})", outcome.status.as_str())),
    }
    let result = ScenarioResult {
        arrow: scenario.arrow.clone(),
        input: scenario.input.clone(),
        expected: scenario.ending.clone().ok(),
        status: outcome.status,
        took_arrow,
        passed: problems.is_empty(),
        problem: (!problems.is_empty()).then(|| problems.join("; ")),
        handoffs: outcome.handoffs,
        script: text,
    };
    (tally, result)
}

/// A scenario as a Simulate script: its replies (the router's decisions under
/// `router:`, the gatekeeper's under `gatekeeper:`), with its input and the
/// person's answers in comments. Every text is written as a JSON string, which YAML
/// reads as it is.
fn script_text(crew: &Crew, scenario: &Scenario) -> String {
    let quote = |text: &str| Value::from(text).to_string();
    let mut out = format!("# Route coverage: the run for arrow {}\n# input: {}\n", scenario.arrow, quote(&scenario.input));
    if let Some(agent) = &scenario.requested {
        out.push_str(&format!("# asked for by name (--agent): {agent}\n"));
    }
    for answer in &scenario.answers {
        out.push_str(&format!("# the person's answer at a pause: {}\n", quote(answer)));
    }
    out.push_str("replies:\n");
    let mut lists: Vec<(&str, &[String])> = scenario.replies.iter().map(|(a, r)| (a.as_str(), r.as_slice())).collect();
    let decider = match crew.routing.strategy {
        Strategy::Gatekeeper => Some(GATEKEEPER),
        Strategy::Llm => Some(ROUTER_AGENT),
        Strategy::Signals | Strategy::Scoring => None,
    };
    if let (Some(decider), false) = (decider, scenario.decisions.is_empty()) {
        lists.push((decider, &scenario.decisions));
    }
    for (agent, replies) in lists {
        out.push_str(&format!("  {}:\n", quote(agent)));
        for reply in replies {
            out.push_str(&format!("    - {}\n", quote(reply)));
        }
    }
    out
}

/// The tools of a scenario's run: every tool its agents name is offered, by name,
/// without starting its server; a call fails (scenarios make none).
struct UncalledTools {
    names: Vec<(String, Vec<String>)>,
}

impl UncalledTools {
    fn of(crew: &Crew) -> Self {
        let mut names: Vec<(String, Vec<String>)> = crew.tool_servers.iter().map(|s| (s.name.clone(), Vec::new())).collect();
        for entry in crew.agents.iter().flat_map(|a| a.tools.iter()) {
            if let Some((index, Some(tool))) = server_entry(&crew.tool_servers, entry) {
                if !names[index].1.iter().any(|t| t == tool) {
                    names[index].1.push(tool.to_owned());
                }
            }
        }
        Self { names }
    }
}

#[async_trait]
impl ToolHost for UncalledTools {
    async fn tools(&self, server: &ToolServer, _cancel: &CancellationToken) -> Result<Vec<ServerTool>, String> {
        let listed = self.names.iter().find(|(name, _)| *name == server.name).map(|(_, tools)| tools.as_slice()).unwrap_or_default();
        Ok(listed
            .iter()
            .map(|name| ServerTool {
                name: name.clone(),
                description: String::new(),
                parameters: serde_json::json!({"type": "object", "properties": {}}),
                read_only: false,
            })
            .collect())
    }

    async fn call(
        &self,
        server: &ToolServer,
        tool: &str,
        _arguments: &Value,
        _progress: &(dyn Fn(ToolProgress) + Send + Sync),
        _cancel: &CancellationToken,
    ) -> Result<ToolOutput, String> {
        Err(format!("{}.{tool} is not called in a route-coverage scenario", server.name))
    }
}
