//! Validation: the file model ([`crate::file`]) becomes a [`Crew`] with resolved
//! ids and a compiled signal registry, and every problem of DESIGN.md §3 is
//! reported with its position — all of them, not only the first.
//!
//! The crew is built even when there are errors, leaving out what does not resolve
//! (a rule whose target is unknown, a duplicate agent), so the window can still draw
//! it with the problems on it. The steps, one file each (private modules):
//!
//! - here: agents, entry point, settings, strategy and the other choices;
//! - `signals`: the registry (strict from `signals:`, or implicit from the rules);
//! - `rules`: routing rules, parallel groups, agent behaviours, Go `defaults`;
//! - `lint`: the warnings (unreachable agents, agents with no way out, unknown tools);
//! - `listed_tools`: after loading, the tools agents name checked against the
//!   servers that run (an error for one a server says it lacks).

mod lint;
mod listed_tools;
mod rules;
mod signals;

pub use listed_tools::check_listed_tools;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use marked_yaml::{Span, Spanned};
use unicode_normalization::char::is_combining_mark;

use crate::crew::{
    Agent, Crew, CrewLayout, Gatekeeper, ModelSpec, OnLoop, OnNoSignal, PolicyRule, Routing, ServerTransport, ServerValue, Settings,
    Strategy, ToolPolicy, ToolServer, DEFAULT_MAX_ITERATIONS, DEFAULT_TOOL_TIMEOUT,
};
use crate::diagnostic::{Problem, Subject};
use crate::file::{is_null, AgentFile, CrewFile, Entries, ModelFile, ServerValueFile};
use crate::ids::AgentId;
use crate::report::Report;
use crate::signal::SignalMatcher;

/// An agent as loaded: its file model, where it is listed in `agents:`, the id it
/// is listed under (crew directories), and whether its file could not be loaded.
#[derive(Debug)]
pub struct LoadedAgent {
    pub file: AgentFile,
    pub entry: Span,
    pub listed_id: Option<Spanned<String>>,
    /// The file was missing or broken (already reported); the agent is a stand-in.
    pub missing: bool,
    /// Added while the app runs, not in the crew's files.
    pub runtime: bool,
}

/// Validates a crew file and its agents, reporting into `report`.
pub fn validate(file: &CrewFile, loaded: &[LoadedAgent], layout: CrewLayout, report: &mut Report) -> Crew {
    let (mut agents, id_spans) = build_agents(loaded, report);
    let known: HashSet<String> = agents.iter().map(|a| a.id.to_string()).collect();
    resolve_handoff_targets(loaded, &mut agents, &known, report);

    if loaded.is_empty() {
        report.at_position(0, 1, 1, Problem::NoAgents);
    }
    let entry_point = check_entry_point(file, &agents, report);
    let routing_file = file.routing.as_ref();
    let groups = rules::build_groups(file, &known, report);
    let group_ids: HashSet<String> = groups.iter().map(|g| g.id.to_string()).collect();
    let strict = file.signals.is_some();
    let (registry, refused) = signals::build_registry(file, &known, &group_ids, report);
    let rules = rules::build_rules(file, &registry, &refused, &known, &group_ids, strict, report);
    rules::apply_agent_behaviors(file, &mut agents, report);
    rules::apply_go_defaults(file, &mut agents, &known, report);

    let settings = build_settings(file, report);
    let mut routing = Routing {
        strategy: choice(routing_file.and_then(|r| r.strategy.as_ref()), "routing.strategy", &Strategy::ALL, report),
        rules,
        groups,
        on_no_signal: choice(routing_file.and_then(|r| r.on_no_signal.as_ref()), "routing.on_no_signal", &OnNoSignal::ALL, report),
        on_loop: choice(routing_file.and_then(|r| r.on_loop.as_ref()), "routing.on_loop", &OnLoop::ALL, report),
        finalizer: None,
        max_iterations: DEFAULT_MAX_ITERATIONS,
        router_model: routing_file.and_then(|r| r.router.as_ref()).and_then(|r| r.model.clone()),
        router_temperature: None,
        router_max_tokens: routing_file.and_then(|r| r.router.as_ref()).and_then(|r| r.max_tokens).filter(|m| *m > 0),
        gatekeeper: None,
        strict_signals: strict,
    };
    if let Some(t) = routing_file.and_then(|r| r.router.as_ref()).and_then(|r| r.temperature.as_ref()) {
        if (0.0..=2.0).contains(&**t) {
            routing.router_temperature = Some(**t);
        } else {
            report.at(t.span(), Problem::BadTemperature { agent: "router".into(), value: t.to_string() }, Subject::Crew);
        }
    }
    check_strategy(file, &agents, &entry_point, &mut routing, &known, report);

    let tool_servers = build_tool_servers(file, report);
    let crew = Crew {
        name: file
            .name
            .as_ref()
            .map(|n| n.to_string())
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| fallback_name(report.file_name(0))),
        description: file.description.clone().unwrap_or_default(),
        version: file.version.as_ref().map_or_else(|| "1.0".to_owned(), |v| v.to_string()),
        entry_point,
        matcher: SignalMatcher::new(&registry),
        signals: registry,
        agents,
        routing,
        settings,
        tool_servers,
        tool_policy: policy_rules(file.tools.as_ref().and_then(|t| t.policy.as_ref()), "tools.policy", report),
        http_allow: file.tools.as_ref().and_then(|t| t.http_get.as_ref()).map(|h| h.allow.clone()).unwrap_or_default(),
        layout,
    };
    lint::warn(&crew, loaded, &id_spans, report);
    crew
}

/// A crew without a `name:` is called after its file (`triage.yaml` → `triage`),
/// or after its folder when the file is a crew folder's `crew.yaml`.
fn fallback_name(file: &str) -> String {
    let path = std::path::Path::new(file);
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let folder = path.parent().and_then(|p| p.file_name()).map(|f| f.to_string_lossy().into_owned());
    match folder {
        Some(folder) if stem == "crew" => folder,
        _ if stem.is_empty() => "crew".to_owned(),
        _ => stem,
    }
}

/// True when `id` is usable as an agent id: letters (any script), digits, `_`, `-`, `.`.
pub fn is_valid_agent_id(id: &str) -> bool {
    id.chars().all(|c| c.is_alphanumeric() || is_combining_mark(c) || matches!(c, '_' | '-' | '.'))
}

/// Builds the agents in crew order, dropping those without a usable id and the
/// second of two with the same id. Returns, per kept agent, the span of its id.
fn build_agents(loaded: &[LoadedAgent], report: &mut Report) -> (Vec<Agent>, Vec<Span>) {
    let mut agents: Vec<Agent> = Vec::new();
    let mut spans = Vec::new();
    let mut seen: HashSet<&str> = HashSet::with_capacity(loaded.len());
    for (index, item) in loaded.iter().enumerate() {
        let file = &item.file;
        // A crew directory lists the id; an inline agent carries it.
        let Some(id) = item.listed_id.as_ref().or(file.id.as_ref()) else {
            report.at(&item.entry, Problem::MissingField { field: format!("agents[{index}].id") }, Subject::Crew);
            continue;
        };
        let id_text = id.trim();
        if id_text.is_empty() {
            report.at(id.span(), Problem::EmptyAgentId, Subject::Crew);
            continue;
        }
        let subject = Subject::Agent { agent: id_text.to_owned() };
        if !seen.insert(id_text) {
            report.at(id.span(), Problem::DuplicateAgent { agent: id_text.to_owned() }, subject);
            continue;
        }
        if !is_valid_agent_id(id_text) {
            report.at(id.span(), Problem::BadAgentId { agent: id_text.to_owned() }, subject.clone());
        }
        let temperature = file.temperature.as_ref().map(|t| **t);
        if let Some(t) = &file.temperature {
            if !(0.0..=2.0).contains(&**t) {
                report.at(t.span(), Problem::BadTemperature { agent: id_text.to_owned(), value: t.to_string() }, subject.clone());
            }
        }
        let primary = file.primary.as_ref().map(model_spec).or_else(|| {
            // The Go engine's older form: provider and provider_url next to model.
            file.provider.as_ref().map(|provider| ModelSpec {
                model: file.model.clone(),
                provider: Some(provider.clone()),
                provider_url: file.provider_url.clone(),
            })
        });
        agents.push(Agent {
            id: AgentId::from(id_text),
            name: file.name.clone().filter(|n| !n.trim().is_empty()).unwrap_or_else(|| id_text.to_owned()),
            role: file.role.clone().unwrap_or_default(),
            description: file.description.clone().unwrap_or_default(),
            objective: file.objective.clone().unwrap_or_default(),
            backstory: file.backstory.clone().unwrap_or_default(),
            tags: file.tags.clone(),
            system_prompt: file.system_prompt.clone().unwrap_or_default(),
            model: file.model.clone().filter(|m| !is_null(m)),
            primary,
            backup: file.backup.as_ref().map(model_spec),
            temperature,
            tools: file.tools.iter().map(|t| t.to_string()).collect(),
            tool_policy: policy_rules(file.tool_policy.as_ref(), &format!("agents.{id_text}.tool_policy"), report),
            handoff_targets: Vec::new(),
            is_terminal: file.is_terminal.unwrap_or(false),
            wait_for_signal: file.wait_for_signal.unwrap_or(false),
            context_budget: file.context_budget.as_ref().map(|b| **b).filter(|b| *b > 0),
            max_tokens: file.max_tokens.as_ref().map(|m| **m).filter(|m| *m > 0),
            runtime: item.runtime,
        });
        spans.push(*id.span());
    }
    (agents, spans)
}

/// The loaded agent that became each agent (the first with its id), by id.
fn loaded_by_id(loaded: &[LoadedAgent]) -> HashMap<&str, &LoadedAgent> {
    let mut by_id = HashMap::with_capacity(loaded.len());
    for item in loaded {
        if let Some(id) = item.listed_id.as_ref().or(item.file.id.as_ref()) {
            by_id.entry(id.trim()).or_insert(item);
        }
    }
    by_id
}

fn model_spec(file: &ModelFile) -> ModelSpec {
    ModelSpec { model: file.model.clone(), provider: file.provider.clone(), provider_url: file.provider_url.clone() }
}

fn resolve_handoff_targets(loaded: &[LoadedAgent], agents: &mut [Agent], known: &HashSet<String>, report: &mut Report) {
    let by_id = loaded_by_id(loaded);
    for agent in agents.iter_mut() {
        let Some(item) = by_id.get(agent.id.as_str()) else { continue };
        for target in &item.file.handoff_targets {
            let subject = Subject::Handoff { agent: agent.id.to_string(), target: target.to_string() };
            if known.contains(target.as_str()) {
                if !agent.handoff_targets.iter().any(|t| t == target.as_str()) {
                    agent.handoff_targets.push(AgentId::from(target.as_str()));
                }
            } else {
                let problem = Problem::UnknownHandoffTarget { target: target.to_string(), agent: agent.id.to_string() };
                report.at(target.span(), problem, subject);
            }
        }
    }
}

fn check_entry_point(file: &CrewFile, agents: &[Agent], report: &mut Report) -> AgentId {
    match file.entry_point.as_ref().filter(|e| !is_null(e)) {
        None => {
            report.at_position(0, 1, 1, Problem::MissingField { field: "entry_point".into() });
            agents.first().map(|a| a.id.clone()).unwrap_or_else(|| AgentId::from(""))
        }
        Some(entry) => {
            if !agents.is_empty() && !agents.iter().any(|a| a.id == entry.as_str()) {
                report.at(entry.span(), Problem::EntryPointNotAgent { entry: entry.to_string() }, Subject::Crew);
            }
            AgentId::from(entry.as_str())
        }
    }
}

/// Parses a choice (`strategy: scoring`), reporting a value that is not one of `options`.
fn choice<T: Copy + Default>(value: Option<&Spanned<String>>, field: &str, options: &[(T, &str)], report: &mut Report) -> T {
    let Some(value) = value.filter(|v| !is_null(v)) else { return T::default() };
    match options.iter().find(|(_, name)| *name == value.trim()) {
        Some((choice, _)) => *choice,
        None => {
            let expected = options.iter().map(|(_, name)| *name).collect::<Vec<_>>().join(", ");
            let problem = Problem::UnknownChoice { field: field.to_owned(), value: value.to_string(), expected };
            report.at(value.span(), problem, Subject::Crew);
            T::default()
        }
    }
}

/// Parses `30s`, `2m`, `1m 30s` or a number of seconds.
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    humantime::parse_duration(text).ok()
}

/// A duration field: parsed, positive, reported otherwise.
pub(crate) fn duration_field(value: &Spanned<String>, field: &str, subject: Subject, report: &mut Report) -> Option<Duration> {
    match parse_duration(value) {
        Some(d) if d.is_zero() => {
            report.at(value.span(), Problem::ZeroLimit { field: field.to_owned() }, subject);
            None
        }
        Some(d) => Some(d),
        None => {
            report.at(value.span(), Problem::BadDuration { field: field.to_owned(), value: value.to_string() }, subject);
            None
        }
    }
}

fn build_settings(file: &CrewFile, report: &mut Report) -> Settings {
    let mut settings = Settings::default();
    let block = file.settings.as_ref();
    // In the Go engine's settings block, 0 means "use the default".
    let go = |value: Option<&Spanned<u32>>| value.map(|v| **v).filter(|v| *v > 0);
    if let Some(v) = go(block.and_then(|s| s.max_handoffs.as_ref())) {
        settings.max_handoffs = v;
    }
    if let Some(v) = go(block.and_then(|s| s.max_rounds.as_ref())) {
        settings.max_rounds = v;
    }
    if let Some(v) = block.and_then(|s| s.max_tool_rounds.as_ref()) {
        settings.max_tool_rounds = **v;
    }
    if let Some(v) = block.and_then(|s| s.timeout_seconds.as_ref()).filter(|v| ***v > 0) {
        settings.timeout = Duration::from_secs(**v);
    }
    if let Some(language) = block.and_then(|s| s.language.clone()).filter(|l| !l.trim().is_empty()) {
        settings.language = language;
    }
    settings.context_budget = go(block.and_then(|s| s.max_context_window.as_ref()));
    if let Some(v) = &file.max_handoffs {
        if **v == 0 {
            report.at(v.span(), Problem::ZeroLimit { field: "max_handoffs".into() }, Subject::Crew);
        } else {
            settings.max_handoffs = **v;
        }
    }
    if let Some(v) = &file.max_tool_rounds {
        settings.max_tool_rounds = **v;
    }
    settings
}

fn check_strategy(file: &CrewFile, agents: &[Agent], entry: &AgentId, routing: &mut Routing, known: &HashSet<String>, report: &mut Report) {
    let Some(routing_file) = file.routing.as_ref() else { return };
    let at = routing_file.strategy.as_ref().map(|s| *s.span()).unwrap_or_else(Span::new_blank);
    if let Some(finalizer) = routing_file.finalizer.as_ref().filter(|f| !is_null(f)) {
        if known.contains(finalizer.as_str()) {
            routing.finalizer = Some(AgentId::from(finalizer.as_str()));
        } else {
            report.at(finalizer.span(), Problem::UnknownFinalizer { agent: finalizer.to_string() }, Subject::Crew);
        }
    }
    if let Some(max) = &routing_file.max_iterations {
        if **max == 0 {
            report.at(max.span(), Problem::ZeroLimit { field: "routing.max_iterations".into() }, Subject::Crew);
        } else {
            routing.max_iterations = **max;
        }
    }
    match routing.strategy {
        Strategy::Scoring if !agents.is_empty() && agents.iter().all(|a| a.id == *entry) => {
            report.at(&at, Problem::ScoringNeedsSpecialists { supervisor: entry.to_string() }, Subject::Crew);
        }
        Strategy::Gatekeeper => {
            let gatekeeper = routing_file.gatekeeper.as_ref();
            match gatekeeper.and_then(|g| g.url.as_ref()).filter(|u| !is_null(u)) {
                None => report.at(&at, Problem::GatekeeperNeedsUrl, Subject::Crew),
                Some(url) if !is_web_address(url) => {
                    report.at(url.span(), Problem::GatekeeperBadUrl { url: url.trim().to_owned() }, Subject::Crew);
                }
                Some(url) => {
                    let timeout = gatekeeper
                        .and_then(|g| g.timeout.as_ref())
                        .and_then(|t| duration_field(t, "routing.gatekeeper.timeout", Subject::Crew, report))
                        .unwrap_or(Duration::from_secs(10));
                    routing.gatekeeper = Some(Gatekeeper {
                        url: url.to_string(),
                        timeout,
                        retries: gatekeeper.and_then(|g| g.retries).unwrap_or(2),
                        token_env: gatekeeper.and_then(|g| g.token_env.clone()),
                    });
                }
            }
        }
        _ => {}
    }
}

/// `http://` or `https://`, then a host, and no spaces.
fn is_web_address(url: &str) -> bool {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let rest = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://"));
    rest.is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/') && !url.contains(char::is_whitespace))
}

fn build_tool_servers(file: &CrewFile, report: &mut Report) -> Vec<ToolServer> {
    let Some(servers) = file.tools.as_ref().and_then(|t| t.servers.as_ref()) else { return Vec::new() };
    let mut out = Vec::new();
    for (name, server) in &servers.0 {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            report.at(name.span(), Problem::ToolServerBadName { server: name.to_string() }, Subject::Crew);
            continue;
        }
        let field = |key: &str| format!("tools.servers.{}.{key}", name.as_str());
        let timeout = match &server.timeout {
            Some(value) => match duration_field(value, &field("timeout"), Subject::Crew, report) {
                Some(timeout) => timeout,
                None => continue,
            },
            None => DEFAULT_TOOL_TIMEOUT,
        };
        let command = server.command.as_ref().filter(|c| !c.trim().is_empty());
        let transport = match (command, &server.url) {
            (Some(_), Some(_)) => {
                report.at(name.span(), Problem::ToolServerTwoWays { server: name.to_string() }, Subject::Crew);
                continue;
            }
            (Some(command), None) => ServerTransport::Stdio {
                command: command.clone(),
                args: server.args.clone(),
                env: server_values(server.env.as_ref()),
                cwd: server.cwd.clone().filter(|c| !c.trim().is_empty()),
            },
            (None, Some(url)) => {
                if !is_web_address(url) || url_has_credentials(url) {
                    let problem = Problem::ToolServerBadUrl { server: name.to_string(), url: url.to_string() };
                    report.at(url.span(), problem, Subject::Crew);
                    continue;
                }
                ServerTransport::Http { url: url.trim().to_owned(), headers: server_values(server.headers.as_ref()) }
            }
            (None, None) => {
                report.at(name.span(), Problem::MissingField { field: field("command") }, Subject::Crew);
                continue;
            }
        };
        out.push(ToolServer { name: name.to_string(), transport, timeout });
    }
    out
}

/// The rules of a `tools.policy` (or an agent's `tool_policy`) mapping.
fn policy_rules(rules: Option<&Entries<Spanned<String>, Spanned<String>>>, field: &str, report: &mut Report) -> Vec<PolicyRule> {
    let Some(rules) = rules else { return Vec::new() };
    rules
        .0
        .iter()
        .filter_map(|(tools, policy)| {
            let field = format!("{field}.{}", tools.as_str());
            let known = ToolPolicy::CHOICES.iter().find(|(_, name)| *name == policy.trim()).map(|(p, _)| *p);
            if known.is_none() {
                // Reported; the rule is left out.
                choice(Some(policy), &field, ToolPolicy::CHOICES, report);
            }
            known.map(|policy| PolicyRule { tools: tools.trim().to_owned(), policy })
        })
        .collect()
}

fn server_values(values: Option<&Entries<Spanned<String>, ServerValueFile>>) -> Vec<(String, ServerValue)> {
    let Some(values) = values else { return Vec::new() };
    values
        .0
        .iter()
        .map(|(name, value)| {
            let value = match value {
                ServerValueFile::Text(text) => ServerValue::Text(text.clone()),
                ServerValueFile::Key { key, prefix } => ServerValue::Key { name: key.clone(), prefix: prefix.clone().unwrap_or_default() },
            };
            (name.to_string(), value)
        })
        .collect()
}

/// A user or password before the host (`https://me:secret@host/`).
fn url_has_credentials(url: &str) -> bool {
    let rest = url.trim().split_once("://").map_or("", |(_, rest)| rest);
    rest.split(['/', '?', '#']).next().is_some_and(|authority| authority.contains('@'))
}

#[cfg(test)]
mod tests {
    use super::{fallback_name, is_web_address};
    use crate::load::load_str;

    #[test]
    fn the_router_temperature_is_kept_when_it_is_between_0_and_2() {
        let crew = |t: &str| {
            load_str(
                "c.yaml",
                &format!(
                    "entry_point: a\nagents: [{{ id: a }}, {{ id: b }}]\nrouting:\n  strategy: llm\n  router: {{ temperature: {t} }}\n"
                ),
            )
        };
        assert_eq!(crew("0.7").crew.unwrap().routing.router_temperature, Some(0.7));
        let hot = crew("5");
        assert_eq!(hot.errors().next().unwrap().to_string(), "c.yaml:5:26: agent 'router' temperature 5 is out of range (0 to 2)");
    }

    #[test]
    fn the_router_max_tokens_is_kept_and_zero_means_the_models_own() {
        let crew = |m: &str| {
            let yaml =
                format!("entry_point: a\nagents: [{{ id: a }}, {{ id: b }}]\nrouting:\n  strategy: llm\n  router: {{ max_tokens: {m} }}\n");
            load_str("c.yaml", &yaml)
        };
        let loaded = crew("384");
        assert!(loaded.diagnostics.is_empty(), "a known key: {:?}", loaded.diagnostics);
        assert_eq!(loaded.crew.unwrap().routing.router_max_tokens, Some(384));
        assert_eq!(crew("0").crew.unwrap().routing.router_max_tokens, None);
    }

    #[test]
    fn a_gatekeeper_url_must_be_http_or_https_and_is_reported_where_it_is_written() {
        for good in ["http://127.0.0.1:8080/decide", "https://gate.example.com", "HTTP://host"] {
            assert!(is_web_address(good), "{good}");
        }
        for bad in ["ftp://host", "http://", "https:///path", "gate.example.com", "http://a b", ""] {
            assert!(!is_web_address(bad), "{bad}");
        }
        let yaml =
            "entry_point: a\nagents: [{ id: a }, { id: b }]\nrouting:\n  strategy: gatekeeper\n  gatekeeper: { url: \"ftp://gate\" }\n";
        let loaded = load_str("c.yaml", yaml);
        let error = loaded.errors().next().expect("an error");
        assert_eq!(error.to_string(), "c.yaml:5:22: routing.gatekeeper.url 'ftp://gate' is not an http:// or https:// address");
    }

    #[test]
    fn unnamed_crews_are_called_after_their_file_or_folder() {
        assert_eq!(fallback_name("crews/triage.yaml"), "triage");
        assert_eq!(fallback_name("crews/it-support/crew.yaml"), "it-support");
        assert_eq!(fallback_name("crew.yaml"), "crew");
        assert_eq!(fallback_name(""), "crew");
    }
}
