//! A crew's signal registry: every signal an agent may emit, with its behaviour,
//! who may emit it, where it may lead, its priority and whether it is deprecated.
//!
//! The registry is built by validation ([`crate::validate`]) from the crew's
//! `signals:` section (a strict registry) or, for crews without one, implicitly from
//! the routing rules; the built-in signals ([`builtins`]) fill in every name the crew
//! does not define itself. Names are case-sensitive; two names that are equal after
//! normalization cannot both be registered.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::{AgentId, SignalName};

/// What happens when a signal matches (DESIGN.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Behavior {
    /// Hand the work to an agent or a parallel group (target required).
    Route,
    /// End the run (target must be empty).
    Terminate,
    /// Wait for the person, then resume with the same agent (or the rule's target).
    Pause,
    /// Run a parallel group (target is a group).
    Parallel,
    /// Deliver the reply to every listed target.
    Broadcast,
}

impl Behavior {
    /// Every behaviour, in the order the docs list them.
    pub const ALL: [Behavior; 5] = [Behavior::Route, Behavior::Terminate, Behavior::Pause, Behavior::Parallel, Behavior::Broadcast];

    /// The YAML spelling (`route`, `terminate`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Behavior::Route => "route",
            Behavior::Terminate => "terminate",
            Behavior::Pause => "pause",
            Behavior::Parallel => "parallel",
            Behavior::Broadcast => "broadcast",
        }
    }

    /// Parses the YAML spelling.
    pub fn parse(text: &str) -> Option<Behavior> {
        Behavior::ALL.into_iter().find(|b| b.as_str() == text)
    }
}

/// Where a registry entry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum SignalOrigin {
    /// One of Crewgraph's built-in signals.
    Builtin,
    /// Declared in the crew's `signals:` section.
    Declared,
    /// Registered implicitly from a routing rule (crews without `signals:`).
    Implicit,
}

/// One registered signal.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct SignalDef {
    /// `[QUESTION]`, or a plain name for a pattern signal.
    pub name: SignalName,
    /// For line signals: the regular expression (multi-line mode; group 1 is the payload).
    pub pattern: Option<String>,
    /// What a match does.
    pub behavior: Behavior,
    /// What the signal means, in words (shown on edges and in generated prompts).
    pub description: String,
    /// Who may emit it; empty means any agent.
    pub allowed_agents: Vec<AgentId>,
    /// Where it may lead; empty means anywhere its behaviour allows.
    pub valid_targets: Vec<String>,
    /// Higher first when signals are listed.
    pub priority: i32,
    /// Why it is deprecated and what to use instead.
    pub deprecated: Option<String>,
    /// Where the entry came from.
    pub origin: SignalOrigin,
    /// Other spellings that match as the signal does, at the same levels
    /// (`aliases:`, often a misspelling models keep making).
    pub aliases: Vec<SignalName>,
}

/// The priority of a signal that names none.
pub const DEFAULT_PRIORITY: i32 = 50;

impl SignalDef {
    /// A bracket signal any agent may emit towards any target, at the default
    /// priority, with no description.
    pub fn new(name: impl Into<SignalName>, behavior: Behavior, origin: SignalOrigin) -> Self {
        SignalDef {
            name: name.into(),
            pattern: None,
            behavior,
            description: String::new(),
            allowed_agents: Vec::new(),
            valid_targets: Vec::new(),
            priority: DEFAULT_PRIORITY,
            deprecated: None,
            origin,
            aliases: Vec::new(),
        }
    }

    /// True when `agent` may emit this signal.
    pub fn allows(&self, agent: &str) -> bool {
        self.allowed_agents.is_empty() || self.allowed_agents.iter().any(|a| a == agent)
    }

    /// True for line (regex) signals.
    pub fn is_pattern(&self) -> bool {
        self.pattern.is_some()
    }
}

/// The position of a signal in its registry; stable for the registry's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SignalIndex(pub u32);

/// The registered signals of one crew.
#[derive(Clone, Debug, Default)]
pub struct SignalRegistry {
    defs: Vec<SignalDef>,
    by_name: HashMap<SignalName, SignalIndex>,
}

impl SignalRegistry {
    /// An empty registry (no built-ins).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a definition; returns None when the exact name is already registered.
    pub fn insert(&mut self, def: SignalDef) -> Option<SignalIndex> {
        if self.by_name.contains_key(&def.name) {
            return None;
        }
        let index = SignalIndex(self.defs.len() as u32);
        self.by_name.insert(def.name.clone(), index);
        self.defs.push(def);
        Some(index)
    }

    /// Looks a signal up by its exact name.
    pub fn lookup(&self, name: &str) -> Option<SignalIndex> {
        self.by_name.get(name).copied()
    }

    /// The definition at `index`.
    pub fn get(&self, index: SignalIndex) -> &SignalDef {
        &self.defs[index.0 as usize]
    }

    /// The definition named `name`.
    pub fn by_name(&self, name: &str) -> Option<&SignalDef> {
        self.lookup(name).map(|index| self.get(index))
    }

    /// All definitions with their indices, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = (SignalIndex, &SignalDef)> {
        self.defs.iter().enumerate().map(|(i, def)| (SignalIndex(i as u32), def))
    }

    /// How many signals are registered.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// True when nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}

/// The built-in signals (DESIGN.md §2), registered unless a crew defines the same
/// name (or a name equal to it after normalization).
pub fn builtins() -> Vec<SignalDef> {
    let def = |name: &str, behavior, priority, description: &str| SignalDef {
        description: description.to_owned(),
        priority,
        ..SignalDef::new(name, behavior, SignalOrigin::Builtin)
    };
    use Behavior::*;
    vec![
        def("[END]", Terminate, 100, "The work is finished"),
        def("[END_EXAM]", Terminate, 100, "The exam is over"),
        def("[DONE]", Terminate, 100, "The task is complete"),
        def("[STOP]", Terminate, 110, "Stop at once"),
        def("[NEXT]", Route, 50, "Hand over to the next agent"),
        def("[QUESTION]", Route, 50, "A question is ready"),
        def("[ANSWER]", Route, 50, "An answer is ready"),
        def("[OK]", Route, 40, "Status: acknowledged"),
        def("[ERROR]", Route, 90, "Status: something went wrong"),
        def("[RETRY]", Route, 60, "Status: try again"),
        def("[WAIT]", Pause, 80, "Wait for the person's input"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_match_design_section_2() {
        let names: Vec<_> = builtins().into_iter().map(|d| (d.name.to_string(), d.behavior)).collect();
        let expected = [
            ("[END]", Behavior::Terminate),
            ("[END_EXAM]", Behavior::Terminate),
            ("[DONE]", Behavior::Terminate),
            ("[STOP]", Behavior::Terminate),
            ("[NEXT]", Behavior::Route),
            ("[QUESTION]", Behavior::Route),
            ("[ANSWER]", Behavior::Route),
            ("[OK]", Behavior::Route),
            ("[ERROR]", Behavior::Route),
            ("[RETRY]", Behavior::Route),
            ("[WAIT]", Behavior::Pause),
        ];
        assert_eq!(names.len(), expected.len());
        for (got, want) in names.iter().zip(expected) {
            assert_eq!((got.0.as_str(), got.1), want);
        }
    }

    #[test]
    fn registry_refuses_the_same_exact_name_twice() {
        let mut registry = SignalRegistry::new();
        let first = builtins().remove(0);
        assert!(registry.insert(first.clone()).is_some());
        assert!(registry.insert(first).is_none());
        assert_eq!(registry.len(), 1);
    }

    #[test]
    fn empty_allowed_agents_means_anyone() {
        let mut def = builtins().remove(0);
        assert!(def.allows("anyone"));
        def.allowed_agents = vec![AgentId::from("teacher")];
        assert!(def.allows("teacher"));
        assert!(!def.allows("student"));
    }
}
