//! What changed between two versions of a crew: a pure function over two crew
//! specs ([`super::spec`], the JSON an editor holds), for the window's history of
//! revisions and `crewgraph diff`.
//!
//! [`diff`] pairs what the two versions share by name — agents by id, routes by
//! their agent and signal (the second rule of an agent for the same signal pairs
//! with the second), otherwise arrows by their two agents, groups by id, signals
//! by name — and reports each thing added, removed or changed, with the fields that
//! changed; long or multi-line text (an agent's instructions) comes with a line
//! diff in hunks ([`TextHunk`], from the `similar` crate). Last, [`CrewDiff::sentences`]
//! says every change in plain words: "added agent Critic", "Critic's route
//! \[REVISE\] now goes to Writer (was Editor)", "changed Writer's instructions".
//!
//! Values that say nothing (`null`, `""`, `[]`, `{}`, and `false` for the yes/no
//! behaviours) count as absent, so a field written out empty is no change.
//!
//! ```
//! use crewgraph_engine::file::diff::diff;
//! use serde_json::json;
//!
//! let before = json!({"name": "Desk", "entry_point": "writer", "agents": [{"id": "writer", "name": "Writer"}]});
//! let after = json!({"name": "Desk", "entry_point": "writer",
//!     "agents": [{"id": "writer", "name": "Writer"}, {"id": "critic", "name": "Critic"}],
//!     "routing": {"signals": {"critic": [{"signal": "[REVISE]", "target": "writer"}]}}});
//! let changes = diff(&before, &after);
//! assert_eq!(changes.sentences, ["added agent Critic", "added Critic's route [REVISE] to Writer"]);
//! ```

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::{Map, Value};
use similar::{ChangeTag, TextDiff};
use ts_rs::TS;

use crate::signal::registry::{builtins, Behavior};

/// Whether something is new, gone, or there in both versions but different.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Change {
    Added,
    Removed,
    Changed,
}

/// Everything that changed from one version of a crew to another.
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct CrewDiff {
    /// The crew's own fields: its name, first agent, handoff limit, strategy …
    pub crew: Vec<FieldChange>,
    /// In the order of the newer version, removed agents after.
    pub agents: Vec<AgentChange>,
    pub routes: Vec<RouteChange>,
    pub fallbacks: Vec<FallbackChange>,
    pub groups: Vec<GroupChange>,
    pub signals: Vec<SignalChange>,
    /// Every change in plain words, in the order of the lists above.
    pub sentences: Vec<String>,
}

impl CrewDiff {
    /// True when the two versions mean the same crew.
    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }
}

/// One field that changed.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct FieldChange {
    /// The field's key in the crew file (`system_prompt`, `routing.strategy`).
    pub field: String,
    /// What the field is, in words ("instructions", "model").
    pub words: String,
    /// The value before, as text; None when it was not set.
    pub before: Option<String>,
    /// The value after, as text; None when it is no longer set.
    pub after: Option<String>,
    /// A line diff of long or multi-line text (instructions), empty otherwise.
    pub hunks: Vec<TextHunk>,
}

/// An agent added, removed or changed.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct AgentChange {
    pub id: String,
    /// Its name (its id when it has none), as the newer version has it.
    pub name: String,
    pub change: Change,
    /// For a changed agent, what changed.
    pub fields: Vec<FieldChange>,
}

/// A routing rule added, removed, or pointed elsewhere.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct RouteChange {
    /// The agent whose reply the rule reads.
    pub agent: String,
    pub signal: String,
    pub change: Change,
    pub before: Option<RouteSide>,
    pub after: Option<RouteSide>,
}

/// Where a rule leads, and what it says it means.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct RouteSide {
    /// Agent or group ids; empty: the run ends, or waits for the person.
    pub targets: Vec<String>,
    pub description: Option<String>,
}

/// An "otherwise" arrow (where a reply without a signal goes) added or removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct FallbackChange {
    pub agent: String,
    pub target: String,
    pub change: Change,
}

/// A parallel group added, removed or changed.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct GroupChange {
    pub id: String,
    pub change: Change,
    pub fields: Vec<FieldChange>,
}

/// An entry of the crew's signal registry added, removed or changed.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct SignalChange {
    pub name: String,
    pub change: Change,
    pub fields: Vec<FieldChange>,
}

/// A run of changed lines with a little context, as `diff -u` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct TextHunk {
    /// The first line of the hunk in the older text, from 1.
    pub old_start: u32,
    pub old_lines: u32,
    /// The first line of the hunk in the newer text, from 1.
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<DiffLine>,
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct DiffLine {
    pub kind: LineKind,
    /// The line, without its line break.
    pub text: String,
}

/// Whether a line of a hunk is in both texts, only the older or only the newer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum LineKind {
    Same,
    Removed,
    Added,
}

/// Lines of unchanged text kept around each change in a hunk.
const CONTEXT_LINES: usize = 2;
/// Text longer than this (or with a line break) gets hunks instead of its values in words.
const LONG_TEXT: usize = 80;

/// The agent fields compared, in the order they are reported, with their words.
/// `handoff_targets` is reported as otherwise arrows; `is_terminal` and
/// `wait_for_signal` also count when set in `routing.agent_behaviors`.
const AGENT_FIELDS: &[(&str, &str)] = &[
    ("name", "name"),
    ("role", "role"),
    ("description", "description"),
    ("objective", "goal"),
    ("backstory", "backstory"),
    ("system_prompt", "instructions"),
    ("model", "model"),
    ("provider", "provider"),
    ("provider_url", "provider address"),
    ("primary", "main model"),
    ("backup", "backup model"),
    ("temperature", "temperature"),
    ("max_tokens", "longest reply"),
    ("context_budget", "history budget"),
    ("tags", "tags"),
    ("tools", "tools"),
    ("tool_policy", "tool rules"),
    ("is_terminal", "finishes the run"),
    ("wait_for_signal", "waits for you"),
];

/// The crew's fields compared (`routing.` ones inside `routing:`), with their words.
const CREW_FIELDS: &[(&str, &str)] = &[
    ("name", "name"),
    ("description", "description"),
    ("version", "version"),
    ("entry_point", "first agent"),
    ("max_handoffs", "handoff limit"),
    ("max_tool_rounds", "most tool rounds per reply"),
    ("routing.strategy", "way of routing"),
    ("routing.on_no_signal", "what happens when no signal matches"),
    ("routing.on_loop", "what happens in a loop"),
    ("routing.finalizer", "agent that writes the final answer"),
    ("routing.max_iterations", "most routing decisions"),
    ("routing.router", "router model"),
    ("routing.gatekeeper", "gatekeeper"),
    ("settings", "settings"),
    ("tools", "tools and tool servers"),
];

const GROUP_FIELDS: &[(&str, &str)] = &[
    ("agents", "members"),
    ("timeout", "time limit"),
    ("timeout_seconds", "time limit in seconds"),
    ("wait_for_all", "waits for every member"),
    ("next_agent", "agent that continues"),
    ("description", "description"),
];

const SIGNAL_FIELDS: &[(&str, &str)] = &[
    ("pattern", "pattern"),
    ("behavior", "behaviour"),
    ("description", "description"),
    ("allowed_agents", "agents allowed to send it"),
    ("valid_targets", "places it may lead"),
    ("priority", "priority"),
    ("deprecated", "deprecation"),
];

/// What changed from `before` to `after`, two crew specs (see the module overview).
/// Anything that is not a mapping counts as an empty crew.
pub fn diff(before: &Value, after: &Value) -> CrewDiff {
    let old = Side::new(before);
    let new = Side::new(after);
    let mut changes = CrewDiff { crew: crew_fields(&old, &new), ..CrewDiff::default() };
    changes.agents = agents(&old, &new);
    changes.routes = routes(&old, &new);
    changes.fallbacks = fallbacks(&old, &new);
    changes.groups =
        keyed(old.groups(), new.groups(), GROUP_FIELDS).map(|(id, change, fields)| GroupChange { id, change, fields }).collect();
    changes.signals =
        keyed(old.signals(), new.signals(), SIGNAL_FIELDS).map(|(name, change, fields)| SignalChange { name, change, fields }).collect();
    changes.sentences = Words { old: &old, new: &new }.sentences(&changes);
    changes
}

/// One version of the crew, with its parts found once.
struct Side<'a> {
    crew: &'a Map<String, Value>,
    routing: Option<&'a Map<String, Value>>,
    /// The agents by id, in the file's order.
    agents: Vec<(String, &'a Map<String, Value>)>,
    index: HashMap<String, usize>,
}

static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();

impl<'a> Side<'a> {
    fn new(spec: &'a Value) -> Side<'a> {
        let crew = spec.as_object().unwrap_or_else(|| EMPTY.get_or_init(Map::new));
        let routing = crew.get("routing").and_then(Value::as_object);
        let list = crew.get("agents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let mut agents = Vec::with_capacity(list.len());
        for (number, agent) in list.iter().enumerate() {
            let Some(fields) = agent.as_object() else { continue };
            let id = fields.get("id").and_then(Value::as_str).map_or_else(|| format!("agent number {}", number + 1), str::to_owned);
            agents.push((id, fields));
        }
        let index = agents.iter().enumerate().map(|(i, (id, _))| (id.clone(), i)).collect();
        Side { crew, routing, agents, index }
    }

    fn agent(&self, id: &str) -> Option<&'a Map<String, Value>> {
        self.index.get(id).map(|&i| self.agents[i].1)
    }

    fn routing_entry(&self, key: &str) -> Option<&'a Map<String, Value>> {
        self.routing.and_then(|r| r.get(key)).and_then(Value::as_object)
    }

    /// Whether `agent` has a yes/no behaviour, on itself or in `routing.agent_behaviors`.
    fn behaviour(&self, agent: &str, key: &str) -> bool {
        let own = self.agent(agent).and_then(|a| a.get(key)).and_then(Value::as_bool).unwrap_or(false);
        let routed = self
            .routing_entry("agent_behaviors")
            .and_then(|b| b.get(agent))
            .and_then(|b| b.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        own || routed
    }

    /// The agent's name, or its id.
    fn name(&self, agent: &str) -> Option<String> {
        self.agent(agent).map(|a| a.get("name").and_then(Value::as_str).filter(|n| !n.trim().is_empty()).unwrap_or(agent).to_owned())
    }

    fn groups(&self) -> Vec<(String, &'a Map<String, Value>)> {
        let Some(groups) = self.routing_entry("parallel_groups") else { return Vec::new() };
        groups.iter().filter_map(|(id, group)| group.as_object().map(|g| (id.clone(), g))).collect()
    }

    fn signals(&self) -> Vec<(String, &'a Map<String, Value>)> {
        let list = self.crew.get("signals").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        list.iter()
            .filter_map(Value::as_object)
            .filter_map(|s| {
                let name = s.get("name").or_else(|| s.get("pattern")).and_then(Value::as_str)?;
                Some((name.to_owned(), s))
            })
            .collect()
    }

    /// The behaviour of `signal` in this version: its registry entry's, else the built-in one's.
    fn signal_behavior(&self, signal: &str) -> Option<Behavior> {
        let own = self
            .signals()
            .into_iter()
            .find(|(name, _)| name == signal)
            .and_then(|(_, s)| s.get("behavior").and_then(Value::as_str).and_then(|b| serde_json::from_value(Value::from(b)).ok()));
        own.or_else(|| builtins().into_iter().find(|d| d.name.as_str() == signal).map(|d| d.behavior))
    }

    /// Every rule as (agent, signal, which of that agent's rules for that signal, side).
    fn rules(&self) -> Vec<((String, String, usize), RouteSide)> {
        let Some(signals) = self.routing_entry("signals") else { return Vec::new() };
        let mut rules = Vec::new();
        let mut seen: HashMap<(String, String), usize> = HashMap::new();
        for (agent, list) in signals {
            for rule in list.as_array().map(Vec::as_slice).unwrap_or_default() {
                let Some(signal) = rule.get("signal").and_then(Value::as_str) else { continue };
                let count = seen.entry((agent.clone(), signal.to_owned())).or_default();
                let targets = match rule.get("target") {
                    Some(Value::String(one)) if !one.trim().is_empty() => vec![one.clone()],
                    Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                    _ => Vec::new(),
                };
                let description = rule.get("description").and_then(Value::as_str).filter(|d| !d.trim().is_empty()).map(str::to_owned);
                rules.push(((agent.clone(), signal.to_owned(), *count), RouteSide { targets, description }));
                *count += 1;
            }
        }
        rules
    }

    /// Every otherwise arrow as (agent, target): `handoff_targets` and `routing.defaults`.
    fn fallbacks(&self) -> Vec<(String, String)> {
        let mut arrows = Vec::new();
        for (id, agent) in &self.agents {
            for target in agent.get("handoff_targets").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                if let Some(target) = target.as_str() {
                    arrows.push((id.clone(), target.to_owned()));
                }
            }
        }
        for (agent, target) in self.routing_entry("defaults").into_iter().flatten() {
            if let Some(target) = target.as_str() {
                arrows.push((agent.clone(), target.to_owned()));
            }
        }
        let mut seen = BTreeSet::new();
        arrows.retain(|arrow| seen.insert(arrow.clone()));
        arrows
    }
}

/// The crew's own fields that changed.
fn crew_fields(old: &Side, new: &Side) -> Vec<FieldChange> {
    CREW_FIELDS
        .iter()
        .filter_map(|&(field, words)| {
            let get = |side: &Side| -> Option<Value> {
                match field.strip_prefix("routing.") {
                    Some(key) => side.routing.and_then(|r| r.get(key)).cloned(),
                    None => side.crew.get(field).cloned(),
                }
            };
            field_change(field, words, get(old).as_ref(), get(new).as_ref())
        })
        .collect()
}

fn agents(old: &Side, new: &Side) -> Vec<AgentChange> {
    let mut changes = Vec::new();
    for (id, agent) in &new.agents {
        let name = new.name(id).unwrap_or_else(|| id.clone());
        match old.agent(id) {
            None => changes.push(AgentChange { id: id.clone(), name, change: Change::Added, fields: Vec::new() }),
            Some(before) => {
                let fields: Vec<FieldChange> = AGENT_FIELDS
                    .iter()
                    .filter_map(|&(field, words)| {
                        if matches!(field, "is_terminal" | "wait_for_signal") {
                            let (was, is) = (old.behaviour(id, field), new.behaviour(id, field));
                            return field_change(field, words, Some(&Value::from(was)), Some(&Value::from(is)));
                        }
                        field_change(field, words, before.get(field), agent.get(field))
                    })
                    .collect();
                if !fields.is_empty() {
                    changes.push(AgentChange { id: id.clone(), name, change: Change::Changed, fields });
                }
            }
        }
    }
    for (id, _) in &old.agents {
        if new.agent(id).is_none() {
            let name = old.name(id).unwrap_or_else(|| id.clone());
            changes.push(AgentChange { id: id.clone(), name, change: Change::Removed, fields: Vec::new() });
        }
    }
    changes
}

fn routes(old: &Side, new: &Side) -> Vec<RouteChange> {
    let before: HashMap<(String, String, usize), RouteSide> = old.rules().into_iter().collect();
    let after = new.rules();
    let mut changes = Vec::new();
    for (key, side) in &after {
        let (agent, signal, _) = key.clone();
        match before.get(key) {
            None => changes.push(RouteChange { agent, signal, change: Change::Added, before: None, after: Some(side.clone()) }),
            Some(was) if was != side => {
                changes.push(RouteChange { agent, signal, change: Change::Changed, before: Some(was.clone()), after: Some(side.clone()) })
            }
            Some(_) => {}
        }
    }
    let kept: BTreeSet<&(String, String, usize)> = after.iter().map(|(key, _)| key).collect();
    for (key, side) in old.rules() {
        if !kept.contains(&key) {
            let (agent, signal, _) = key;
            changes.push(RouteChange { agent, signal, change: Change::Removed, before: Some(side), after: None });
        }
    }
    changes
}

fn fallbacks(old: &Side, new: &Side) -> Vec<FallbackChange> {
    let before: BTreeSet<(String, String)> = old.fallbacks().into_iter().collect();
    let after = new.fallbacks();
    let now: BTreeSet<&(String, String)> = after.iter().collect();
    let added = after.iter().filter(|arrow| !before.contains(*arrow)).map(|(agent, target)| FallbackChange {
        agent: agent.clone(),
        target: target.clone(),
        change: Change::Added,
    });
    let removed = old.fallbacks().into_iter().filter(|arrow| !now.contains(arrow)).map(|(agent, target)| FallbackChange {
        agent,
        target,
        change: Change::Removed,
    });
    added.chain(removed).collect()
}

/// Things known by a key (groups, signals): added, removed, or changed in `fields`.
fn keyed<'a>(
    old: Vec<(String, &'a Map<String, Value>)>,
    new: Vec<(String, &'a Map<String, Value>)>,
    fields: &'static [(&'static str, &'static str)],
) -> impl Iterator<Item = (String, Change, Vec<FieldChange>)> + 'a {
    let before: HashMap<String, &Map<String, Value>> = old.iter().cloned().collect();
    let kept: BTreeSet<String> = new.iter().map(|(key, _)| key.clone()).collect();
    let changed = new.into_iter().filter_map(move |(key, thing)| match before.get(&key) {
        None => Some((key, Change::Added, Vec::new())),
        Some(was) => {
            let found: Vec<FieldChange> =
                fields.iter().filter_map(|&(field, words)| field_change(field, words, was.get(field), thing.get(field))).collect();
            (!found.is_empty()).then_some((key, Change::Changed, found))
        }
    });
    let removed = old.into_iter().filter(move |(key, _)| !kept.contains(key)).map(|(key, _)| (key, Change::Removed, Vec::new()));
    changed.chain(removed)
}

/// A value that says something: not null, empty text, an empty list or mapping, or false.
fn meaningful(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(fields) => !fields.is_empty(),
        _ => true,
    })
}

/// The change of one field, None when it means the same on both sides.
fn field_change(field: &str, words: &str, before: Option<&Value>, after: Option<&Value>) -> Option<FieldChange> {
    let (before, after) = (meaningful(before), meaningful(after));
    if before == after || same_number(before, after) {
        return None;
    }
    let hunks = match (before.and_then(Value::as_str), after.and_then(Value::as_str)) {
        (old, new) if is_long(old) || is_long(new) => text_hunks(old.unwrap_or_default(), new.unwrap_or_default()),
        _ => Vec::new(),
    };
    Some(FieldChange { field: field.to_owned(), words: words.to_owned(), before: before.map(as_text), after: after.map(as_text), hunks })
}

/// `0.5` and `"0.5"` (a number read back as text) are the same value.
fn same_number(before: Option<&Value>, after: Option<&Value>) -> bool {
    match (before, after) {
        (Some(a), Some(b)) => as_text(a) == as_text(b) && (a.is_number() || b.is_number()),
        _ => false,
    }
}

fn is_long(text: Option<&str>) -> bool {
    text.is_some_and(|t| t.contains('\n') || t.chars().count() > LONG_TEXT)
}

/// A value as a person reads it: text as it is, lists joined with commas, yes/no.
fn as_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::Null => String::new(),
        Value::Number(number) => number.to_string(),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            items.iter().map(as_text).collect::<Vec<_>>().join(", ")
        }
        Value::Object(fields) if fields.values().all(|v| !v.is_object() && !v.is_array()) => {
            fields.iter().map(|(k, v)| format!("{k}: {}", as_text(v))).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    }
}

/// The line diff of two texts, as hunks with a little context.
pub fn text_hunks(old: &str, new: &str) -> Vec<TextHunk> {
    let diff = TextDiff::from_lines(old, new);
    let line = |at: usize| u32::try_from(at + 1).unwrap_or(u32::MAX);
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    diff.grouped_ops(CONTEXT_LINES)
        .iter()
        .filter_map(|group| {
            let (first, last) = (group.first()?, group.last()?);
            let (old_range, new_range) = (first.old_range().start..last.old_range().end, first.new_range().start..last.new_range().end);
            let lines = group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .map(|change| DiffLine {
                    kind: match change.tag() {
                        ChangeTag::Equal => LineKind::Same,
                        ChangeTag::Delete => LineKind::Removed,
                        ChangeTag::Insert => LineKind::Added,
                    },
                    text: change.value().trim_end_matches(['\n', '\r']).to_owned(),
                })
                .collect();
            Some(TextHunk {
                old_start: line(old_range.start),
                old_lines: count(old_range.len()),
                new_start: line(new_range.start),
                new_lines: count(new_range.len()),
                lines,
            })
        })
        .collect()
}

/// Writes the sentences; names come from the version that has the thing.
struct Words<'a> {
    old: &'a Side<'a>,
    new: &'a Side<'a>,
}

impl Words<'_> {
    fn sentences(&self, changes: &CrewDiff) -> Vec<String> {
        let mut out = Vec::new();
        for field in &changes.crew {
            out.push(self.crew_field(field));
        }
        for agent in &changes.agents {
            match agent.change {
                Change::Added => out.push(format!("added agent {}", agent.name)),
                Change::Removed => out.push(format!("removed agent {}", agent.name)),
                Change::Changed => {
                    let was = self.old.name(&agent.id).unwrap_or_else(|| agent.id.clone());
                    out.extend(agent.fields.iter().map(|f| agent_field(&was, &agent.name, f)));
                }
            }
        }
        for route in &changes.routes {
            out.push(self.route(route));
        }
        for arrow in &changes.fallbacks {
            let (from, to) = (self.agent(&arrow.agent), self.agent(&arrow.target));
            out.push(match arrow.change {
                Change::Removed => format!("{from} no longer hands off to {to} when no signal matches"),
                _ => format!("{from} now hands off to {to} when no signal matches"),
            });
        }
        for group in &changes.groups {
            out.extend(self.group(group));
        }
        for signal in &changes.signals {
            out.extend(match signal.change {
                Change::Added => vec![format!("added signal {}", signal.name)],
                Change::Removed => vec![format!("removed signal {}", signal.name)],
                Change::Changed => {
                    signal.fields.iter().map(|f| change_words(&format!("signal {}'s {}", signal.name, f.words), f)).collect()
                }
            });
        }
        out
    }

    /// An agent's (or group's) name in whichever version has it.
    fn agent(&self, id: &str) -> String {
        self.new.name(id).or_else(|| self.old.name(id)).unwrap_or_else(|| format!("group {id}"))
    }

    fn agents(&self, ids: &[String]) -> String {
        let names: Vec<String> = ids.iter().map(|id| self.agent(id)).collect();
        match names.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    }

    fn crew_field(&self, field: &FieldChange) -> String {
        match (field.field.as_str(), &field.before, &field.after) {
            ("name", Some(was), Some(is)) => format!("renamed the crew from {was} to {is}"),
            ("entry_point", _, Some(is)) => match &field.before {
                Some(was) => format!("runs now start with {} (was {})", self.agent(is), self.agent(was)),
                None => format!("runs now start with {}", self.agent(is)),
            },
            ("max_handoffs", Some(was), Some(is)) => format!("the handoff limit is now {is} (was {was})"),
            _ => change_words(&format!("the crew's {}", field.words), field),
        }
    }

    /// Where a rule leads, in words: "to Writer", "to Writer and Editor", "which ends the run".
    fn leads(&self, side: &RouteSide, signal: &str, version: &Side) -> String {
        if side.targets.is_empty() {
            return match version.signal_behavior(signal) {
                Some(Behavior::Pause) => "which waits for you".into(),
                _ => "which ends the run".into(),
            };
        }
        format!("to {}", self.agents(&side.targets))
    }

    fn route(&self, route: &RouteChange) -> String {
        let (agent, signal) = (self.agent(&route.agent), &route.signal);
        match (&route.before, &route.after) {
            (None, Some(after)) => format!("added {agent}'s route {signal} {}", self.leads(after, signal, self.new)),
            (Some(before), None) => format!("removed {agent}'s route {signal} {}", self.leads(before, signal, self.old)),
            (Some(before), Some(after)) if before.targets != after.targets => {
                let now = if after.targets.is_empty() {
                    self.leads(after, signal, self.new)
                        .trim_start_matches("which ")
                        .replace("ends", "now ends")
                        .replace("waits", "now waits")
                } else {
                    format!("now goes to {}", self.agents(&after.targets))
                };
                let was = if before.targets.is_empty() {
                    self.leads(before, signal, self.old).trim_start_matches("which ").replace("ends", "ended").replace("waits", "waited")
                } else {
                    self.agents(&before.targets)
                };
                format!("{agent}'s route {signal} {now} (was {was})")
            }
            _ => format!("changed what {agent}'s route {signal} says it means"),
        }
    }

    fn group(&self, group: &GroupChange) -> Vec<String> {
        let id = &group.id;
        match group.change {
            Change::Added => {
                let members: Vec<String> = self
                    .new
                    .groups()
                    .into_iter()
                    .find(|(g, _)| g == id)
                    .and_then(|(_, g)| g.get("agents").and_then(Value::as_array).cloned())
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|m| m.as_str().map(str::to_owned))
                    .collect();
                if members.is_empty() {
                    vec![format!("added group {id}")]
                } else {
                    vec![format!("added group {id} ({})", self.agents(&members))]
                }
            }
            Change::Removed => vec![format!("removed group {id}")],
            Change::Changed => group
                .fields
                .iter()
                .map(|field| {
                    if field.field == "agents" {
                        let list = |text: &Option<String>| -> BTreeSet<String> {
                            text.as_deref().unwrap_or_default().split(", ").filter(|s| !s.is_empty()).map(str::to_owned).collect()
                        };
                        let (was, is) = (list(&field.before), list(&field.after));
                        let joined: Vec<String> = is.difference(&was).cloned().collect();
                        let left: Vec<String> = was.difference(&is).cloned().collect();
                        let mut parts = Vec::new();
                        if !joined.is_empty() {
                            parts.push(format!("{} joined", self.agents(&joined)));
                        }
                        if !left.is_empty() {
                            parts.push(format!("{} left", self.agents(&left)));
                        }
                        if parts.is_empty() {
                            return format!("changed the order of group {id}'s members");
                        }
                        return format!("group {id}: {}", parts.join(", "));
                    }
                    change_words(&format!("{} {}", owner(&format!("group {id}")), field.words), field)
                })
                .collect(),
        }
    }
}

/// "Writer's", "group reviewers'".
fn owner(name: &str) -> String {
    if name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

/// One changed field of an agent, in words.
fn agent_field(was: &str, name: &str, field: &FieldChange) -> String {
    match (field.field.as_str(), field.after.is_some()) {
        ("name", _) => match &field.after {
            Some(is) => format!("renamed {was} to {is}"),
            None => format!("took {was}'s name away (it is known by its id, {name})"),
        },
        ("is_terminal", true) => format!("{name} now finishes the run"),
        ("is_terminal", false) => format!("{name} no longer finishes the run"),
        ("wait_for_signal", true) => format!("{name} now waits for you when no signal matches"),
        ("wait_for_signal", false) => format!("{name} no longer waits for you when no signal matches"),
        _ => change_words(&format!("{name}'s {}", field.words), field),
    }
}

/// "changed Writer's model from fast to default", "set …", "removed …"; long text
/// ("changed Writer's instructions") without its values.
fn change_words(what: &str, field: &FieldChange) -> String {
    if !field.hunks.is_empty() {
        return format!("changed {what}");
    }
    match (&field.before, &field.after) {
        (None, Some(is)) => format!("set {what} to {is}"),
        (Some(was), None) => format!("removed {what} (was {was})"),
        (Some(was), Some(is)) => format!("changed {what} from {was} to {is}"),
        (None, None) => format!("changed {what}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn desk() -> Value {
        json!({
            "name": "Desk", "entry_point": "writer", "max_handoffs": 5,
            "agents": [
                {"id": "writer", "name": "Writer", "model": "fast", "system_prompt": "Write the piece.\nKeep it short.\nEnd with [READY].\n"},
                {"id": "editor", "name": "Editor", "handoff_targets": ["writer"]},
            ],
            "routing": {"signals": {
                "writer": [{"signal": "[READY]", "target": "editor"}],
                "editor": [{"signal": "[REVISE]", "target": "writer"}, {"signal": "[DONE]", "target": ""}],
            }},
        })
    }

    #[test]
    fn the_same_crew_has_no_changes_even_written_differently() {
        let mut written = desk();
        // Empty values and false behaviours say nothing: they are no change.
        written["description"] = json!("");
        written["agents"][0]["tags"] = json!([]);
        written["agents"][1]["is_terminal"] = json!(false);
        let changes = diff(&desk(), &written);
        assert!(changes.is_empty(), "{:?}", changes.sentences);
        assert_eq!(changes, CrewDiff::default());
    }

    #[test]
    fn an_added_agent_and_a_repointed_route_read_as_the_issue_says() {
        let mut after = desk();
        after["agents"].as_array_mut().unwrap().push(json!({"id": "critic", "name": "Critic"}));
        after["routing"]["signals"]["editor"][0]["target"] = json!("critic");
        let changes = diff(&desk(), &after);
        assert_eq!(changes.sentences, ["added agent Critic", "Editor's route [REVISE] now goes to Critic (was Writer)"]);
        assert_eq!(changes.agents[0].change, Change::Added);
        let route = &changes.routes[0];
        assert_eq!((route.agent.as_str(), route.signal.as_str(), route.change), ("editor", "[REVISE]", Change::Changed));
        assert_eq!(route.before.as_ref().unwrap().targets, ["writer"]);
        assert_eq!(route.after.as_ref().unwrap().targets, ["critic"]);
    }

    #[test]
    fn a_removed_agent_takes_its_routes_and_arrows_with_it() {
        let mut after = desk();
        after["agents"].as_array_mut().unwrap().remove(1);
        after["routing"]["signals"].as_object_mut().unwrap().remove("editor");
        after["routing"]["signals"]["writer"][0]["target"] = json!("");
        let changes = diff(&desk(), &after);
        assert_eq!(
            changes.sentences,
            [
                "removed agent Editor",
                "Writer's route [READY] now ends the run (was Editor)",
                "removed Editor's route [REVISE] to Writer",
                "removed Editor's route [DONE] which ends the run",
                "Editor no longer hands off to Writer when no signal matches",
            ]
        );
        assert_eq!(changes.fallbacks, [FallbackChange { agent: "editor".into(), target: "writer".into(), change: Change::Removed }]);
    }

    #[test]
    fn changed_instructions_come_as_a_line_diff() {
        let mut after = desk();
        after["agents"][0]["system_prompt"] = json!("Write the piece.\nKeep it under 200 words.\nEnd with [READY].\n");
        let changes = diff(&desk(), &after);
        assert_eq!(changes.sentences, ["changed Writer's instructions"]);
        let field = &changes.agents[0].fields[0];
        assert_eq!((field.field.as_str(), field.words.as_str()), ("system_prompt", "instructions"));
        assert_eq!(field.hunks.len(), 1);
        let hunk = &field.hunks[0];
        assert_eq!((hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines), (1, 3, 1, 3));
        let lines: Vec<(LineKind, &str)> = hunk.lines.iter().map(|l| (l.kind, l.text.as_str())).collect();
        assert_eq!(
            lines,
            [
                (LineKind::Same, "Write the piece."),
                (LineKind::Removed, "Keep it short."),
                (LineKind::Added, "Keep it under 200 words."),
                (LineKind::Same, "End with [READY]."),
            ]
        );
    }

    #[test]
    fn short_fields_are_said_with_their_values() {
        let mut after = desk();
        after["agents"][0]["model"] = json!("default");
        after["agents"][0]["temperature"] = json!(0.3);
        after["agents"][1]["name"] = json!("Chief editor");
        after["agents"][1]["is_terminal"] = json!(true);
        after["max_handoffs"] = json!(8);
        after["entry_point"] = json!("editor");
        let changes = diff(&desk(), &after);
        assert_eq!(
            changes.sentences,
            [
                "runs now start with Chief editor (was Writer)",
                "the handoff limit is now 8 (was 5)",
                "changed Writer's model from fast to default",
                "set Writer's temperature to 0.3",
                "renamed Editor to Chief editor",
                "Chief editor now finishes the run",
            ]
        );
    }

    #[test]
    fn a_behaviour_set_in_routing_is_the_same_as_on_the_agent() {
        let mut before = desk();
        before["agents"][1]["is_terminal"] = json!(true);
        let mut after = desk();
        after["routing"]["agent_behaviors"] = json!({"editor": {"is_terminal": true}});
        assert!(diff(&before, &after).is_empty());
    }

    #[test]
    fn otherwise_arrows_groups_and_signals_are_compared() {
        let mut after = desk();
        after["routing"]["defaults"] = json!({"writer": "editor"});
        after["routing"]["parallel_groups"] = json!({"reviewers": {"agents": ["editor", "writer"], "timeout": "30s"}});
        after["signals"] = json!([{"name": "[REVISE]", "behavior": "route", "description": "Needs another pass"}]);
        let changes = diff(&desk(), &after);
        assert_eq!(
            changes.sentences,
            ["Writer now hands off to Editor when no signal matches", "added group reviewers (Editor and Writer)", "added signal [REVISE]"]
        );
        let mut later = after.clone();
        later["routing"]["parallel_groups"]["reviewers"] = json!({"agents": ["editor"], "timeout": "60s"});
        later["signals"][0]["description"] = json!("Send it back");
        assert_eq!(
            diff(&after, &later).sentences,
            [
                "group reviewers: Writer left",
                "changed group reviewers' time limit from 30s to 60s",
                "changed signal [REVISE]'s description from Needs another pass to Send it back",
            ]
        );
    }

    #[test]
    fn a_rule_without_target_ends_or_waits_as_its_signal_behaves() {
        let mut after = desk();
        after["routing"]["signals"]["writer"] = json!([{"signal": "[READY]", "target": "editor"}, {"signal": "[WAIT]"}]);
        assert_eq!(diff(&desk(), &after).sentences, ["added Writer's route [WAIT] which waits for you"]);
    }

    #[test]
    fn two_rules_for_one_signal_pair_in_order() {
        let mut before = desk();
        before["routing"]["signals"]["writer"] =
            json!([{"signal": "[READY]", "target": "editor"}, {"signal": "[READY]", "target": "writer"}]);
        let mut after = before.clone();
        after["routing"]["signals"]["writer"][1]["target"] = json!(["editor", "writer"]);
        let changes = diff(&before, &after);
        assert_eq!(changes.sentences, ["Writer's route [READY] now goes to Editor and Writer (was Writer)"]);
    }

    #[test]
    fn anything_but_a_mapping_is_an_empty_crew() {
        let changes = diff(&json!("text"), &json!({"name": "New", "agents": [{"id": "a"}]}));
        assert_eq!(changes.sentences, ["set the crew's name to New", "added agent a"]);
        assert_eq!(diff(&desk(), &Value::Null).agents.iter().filter(|a| a.change == Change::Removed).count(), 2);
    }

    #[test]
    fn hunks_number_lines_from_one_and_keep_two_lines_of_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let hunks = text_hunks(old, new);
        assert_eq!(hunks.len(), 1);
        assert_eq!((hunks[0].old_start, hunks[0].old_lines, hunks[0].new_start, hunks[0].new_lines), (3, 5, 3, 5));
        assert!(text_hunks(old, old).is_empty());
    }
}
