//! Building a crew's signal registry (DESIGN.md §3, "Implicit and strict registries").
//!
//! A crew with a `signals:` section is strict: its entries are checked and
//! registered. A crew without one (every Go-engine crew) registers each signal of its
//! routing rules implicitly, with the behaviour the rule implies. Either way the
//! built-in signals are added for every name the crew does not define, and two names
//! equal after normalization are refused.

use std::collections::{HashMap, HashSet};

use marked_yaml::Spanned;

use crate::diagnostic::{Problem, Subject};
use crate::file::{CrewFile, SignalFile, Targets};
use crate::ids::{AgentId, SignalName};
use crate::report::Report;
use crate::signal::matcher::compile_pattern;
use crate::signal::name::{inner, is_bracket_name, is_pattern_name, normalize};
use crate::signal::registry::{builtins, DEFAULT_PRIORITY};
use crate::signal::{Behavior, SignalDef, SignalOrigin, SignalRegistry};

/// Builds the registry; also returns the names that were declared but refused
/// (already reported), so rules using them are not reported a second time.
pub(super) fn build_registry(
    file: &CrewFile,
    agents: &HashSet<String>,
    groups: &HashSet<String>,
    report: &mut Report,
) -> (SignalRegistry, HashSet<String>) {
    let mut registry = Registering {
        registry: SignalRegistry::new(),
        normalized: HashMap::new(),
        refused: HashSet::new(),
        rule_aliases: rule_aliases(file),
    };
    match &file.signals {
        Some(declared) => {
            for (index, entry) in declared.iter().enumerate() {
                declare(index, entry, agents, groups, &mut registry, report);
            }
        }
        None => register_implicitly(file, groups, &mut registry, report),
    }
    let Registering { mut registry, mut normalized, refused, rule_aliases } = registry;
    for mut builtin in builtins() {
        let shadowed =
            registry.lookup(builtin.name.as_str()).is_some() || normalized.contains_key(&normalize(inner(builtin.name.as_str())));
        if shadowed {
            continue;
        }
        // A rule's aliases of a built-in signal the crew does not declare are its.
        for alias in rule_aliases.get(builtin.name.as_str()).into_iter().flatten() {
            let subject = Subject::Signal { signal: builtin.name.to_string() };
            let key = normalize(inner(alias.as_str()));
            if !is_bracket_name(alias) {
                report.at(alias.span(), Problem::InvalidSignalFormat { signal: alias.to_string() }, subject);
            } else if let Some(first) = normalized.get(&key).filter(|first| **first != builtin.name.as_str()) {
                report.at(alias.span(), Problem::SignalsCollide { first: first.clone(), second: alias.to_string() }, subject);
            } else if !builtin.aliases.iter().any(|a| normalize(inner(a.as_str())) == key) {
                normalized.insert(key, builtin.name.to_string());
                builtin.aliases.push(SignalName::from(alias.as_str()));
            }
        }
        registry.insert(builtin);
    }
    (registry, refused)
}

/// A registry being built, with the normalized form of each bracket name (and
/// alias) in it.
struct Registering<'f> {
    registry: SignalRegistry,
    normalized: HashMap<String, String>,
    refused: HashSet<String>,
    /// The aliases the rules give each signal, by its name.
    rule_aliases: HashMap<String, Vec<&'f Spanned<String>>>,
}

/// The aliases each signal's rules give it (`routing.signals.<agent>[].aliases`).
fn rule_aliases(file: &CrewFile) -> HashMap<String, Vec<&Spanned<String>>> {
    let mut aliases: HashMap<String, Vec<&Spanned<String>>> = HashMap::new();
    let Some(rules) = file.routing.as_ref().and_then(|r| r.signals.as_ref()) else { return aliases };
    for (_, agent_rules) in &rules.0 {
        for rule in agent_rules {
            if let Some(name) = rule.signal.as_ref() {
                aliases.entry(name.to_string()).or_default().extend(rule.aliases.iter());
            }
        }
    }
    aliases
}

impl Registering<'_> {
    /// Registers `def` with the `aliases` written for it (its entry's, then its
    /// rules'), or reports why it cannot be: the same name twice, or a bracket name
    /// equal to another after normalization. An alias that is no bracket name, or
    /// equal to another name or alias after normalization, is reported and left out.
    fn insert(&mut self, mut def: SignalDef, at: &Spanned<String>, aliases: &[&Spanned<String>], report: &mut Report) {
        let subject = Subject::Signal { signal: def.name.to_string() };
        if self.registry.lookup(def.name.as_str()).is_some() {
            report.at(at.span(), Problem::DuplicateSignal { signal: def.name.to_string() }, subject);
            return;
        }
        if def.pattern.is_none() {
            let key = normalize(inner(def.name.as_str()));
            if let Some(first) = self.normalized.get(&key) {
                let problem = Problem::SignalsCollide { first: first.clone(), second: def.name.to_string() };
                report.at(at.span(), problem, subject);
                self.refused.insert(def.name.to_string());
                return;
            }
            self.normalized.insert(key, def.name.to_string());
            let from_rules = self.rule_aliases.get(def.name.as_str()).cloned().unwrap_or_default();
            for alias in aliases.iter().chain(&from_rules) {
                let subject = Subject::Signal { signal: def.name.to_string() };
                if !is_bracket_name(alias) {
                    report.at(alias.span(), Problem::InvalidSignalFormat { signal: alias.to_string() }, subject);
                    continue;
                }
                let key = normalize(inner(alias.as_str()));
                match self.normalized.get(&key) {
                    // The same alias written twice (on the entry and a rule) is one.
                    Some(first) if *first == def.name.as_str() && def.aliases.iter().any(|a| normalize(inner(a.as_str())) == key) => {}
                    Some(first) => {
                        report.at(alias.span(), Problem::SignalsCollide { first: first.clone(), second: alias.to_string() }, subject);
                    }
                    None => {
                        self.normalized.insert(key, def.name.to_string());
                        def.aliases.push(SignalName::from(alias.as_str()));
                    }
                }
            }
        }
        self.registry.insert(def);
    }
}

fn declare(
    index: usize,
    entry: &Spanned<SignalFile>,
    agents: &HashSet<String>,
    groups: &HashSet<String>,
    registering: &mut Registering<'_>,
    report: &mut Report,
) {
    let Some(name) = entry.name.as_ref() else {
        report.at(entry.span(), Problem::MissingField { field: format!("signals[{index}].name") }, Subject::Crew);
        return;
    };
    let subject = Subject::Signal { signal: name.to_string() };
    let mut ok = true;
    match &entry.pattern {
        Some(pattern) => {
            if !is_pattern_name(name) {
                report.at(name.span(), Problem::BadPatternName { signal: name.to_string() }, subject.clone());
                ok = false;
            }
            // Still registered, so rules naming it are not reported again as unknown
            // (the matcher skips a pattern that does not compile).
            if let Err(error) = compile_pattern(pattern) {
                let problem = Problem::BadPattern { signal: name.to_string(), detail: regex_detail(&error) };
                report.at(pattern.span(), problem, subject.clone());
            }
        }
        None if !is_bracket_name(name) => {
            report.at(name.span(), Problem::InvalidSignalFormat { signal: name.to_string() }, subject.clone());
            ok = false;
        }
        None => {}
    }
    let behavior = match &entry.behavior {
        None => Behavior::Route,
        Some(text) => match Behavior::parse(text.trim()) {
            Some(behavior) => behavior,
            None => {
                let problem = Problem::UnknownBehavior { signal: name.to_string(), behavior: text.to_string() };
                report.at(text.span(), problem, subject.clone());
                Behavior::Route
            }
        },
    };
    let mut allowed_agents = Vec::new();
    for agent in &entry.allowed_agents {
        if agents.contains(agent.as_str()) {
            allowed_agents.push(AgentId::from(agent.as_str()));
        } else {
            let problem = Problem::UnknownAllowedAgent { signal: name.to_string(), agent: agent.to_string() };
            report.at(agent.span(), problem, subject.clone());
        }
    }
    let mut valid_targets = Vec::new();
    for target in &entry.valid_targets {
        if agents.contains(target.as_str()) || groups.contains(target.as_str()) {
            valid_targets.push(target.to_string());
        } else {
            let problem = Problem::UnknownValidTarget { signal: name.to_string(), target: target.to_string() };
            report.at(target.span(), problem, subject.clone());
        }
    }
    if !ok {
        registering.refused.insert(name.to_string());
        return;
    }
    let def = SignalDef {
        name: SignalName::from(name.as_str()),
        pattern: entry.pattern.as_ref().map(|p| p.to_string()),
        behavior,
        description: entry.description.clone().unwrap_or_default(),
        allowed_agents,
        valid_targets,
        priority: entry.priority.unwrap_or(DEFAULT_PRIORITY),
        deprecated: entry.deprecated.clone().map(|note| if note.trim().is_empty() { "no longer in use".into() } else { note }),
        origin: SignalOrigin::Declared,
        aliases: Vec::new(),
    };
    let aliases: Vec<&Spanned<String>> = entry.aliases.iter().collect();
    registering.insert(def, name, &aliases, report);
}

/// The regex library's one-line reason (its message also draws the pattern).
fn regex_detail(error: &regex::Error) -> String {
    let text = error.to_string();
    text.lines().find_map(|line| line.trim().strip_prefix("error: ")).unwrap_or(text.lines().last().unwrap_or_default()).to_owned()
}

/// The behaviour a rule's target implies when the crew has no `signals:` section.
pub(super) fn implied_behavior(targets: Option<&Targets>, groups: &HashSet<String>) -> Behavior {
    match targets {
        None | Some(Targets::None) => Behavior::Terminate,
        Some(Targets::One(target)) if groups.contains(target.as_str()) => Behavior::Parallel,
        Some(Targets::One(_)) => Behavior::Route,
        Some(Targets::Many(list)) if list.len() == 1 && groups.contains(list[0].as_str()) => Behavior::Parallel,
        Some(Targets::Many(list)) if list.len() == 1 => Behavior::Route,
        Some(Targets::Many(_)) => Behavior::Broadcast,
    }
}

fn register_implicitly(file: &CrewFile, groups: &HashSet<String>, registering: &mut Registering<'_>, report: &mut Report) {
    let Some(rules) = file.routing.as_ref().and_then(|r| r.signals.as_ref()) else { return };
    for (_, agent_rules) in &rules.0 {
        for rule in agent_rules {
            let Some(name) = rule.signal.as_ref() else { continue };
            // Malformed names are reported with the rule.
            if !is_bracket_name(name) || registering.registry.lookup(name.as_str()).is_some() {
                continue;
            }
            let def = SignalDef {
                description: rule.description.clone().unwrap_or_default(),
                ..SignalDef::new(name.as_str(), implied_behavior(rule.target.as_deref(), groups), SignalOrigin::Implicit)
            };
            registering.insert(def, name, &[], report);
        }
    }
}
