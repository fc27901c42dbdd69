//! The crew file as written: a serde-only mirror of the YAML (DESIGN.md §2), in
//! both forms — a self-contained file with agents inline, and the Go engine's crew
//! directory (`crew.yaml` listing agent ids, one `agents/<id>.yaml` each, with its
//! `settings:` block and `primary:`/`backup:` models).
//!
//! Nothing here is checked beyond the YAML's shape: ids are not resolved and
//! behaviours not parsed. Values that validation must check are kept with their
//! position ([`Spanned`]) so every error can point at a line and column; choices
//! (`behavior:`, `strategy:` …) stay strings here so that a wrong one is reported
//! with every other problem of the file instead of stopping the parse.
//!
//! [`crate::load`] reads files into these types; [`crate::validate`] turns them into
//! a [`crate::crew::Crew`].

pub mod diff;
pub mod spec;

use std::fmt;
use std::marker::PhantomData;

use marked_yaml::Spanned;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A whole crew file (or a crew directory's `crew.yaml`).
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "CrewSpec", optional_fields)]
pub struct CrewFile {
    #[ts(as = "Option<String>")]
    pub version: Option<Spanned<String>>,
    #[ts(as = "Option<String>")]
    pub name: Option<Spanned<String>>,
    pub description: Option<String>,
    #[ts(as = "Option<String>")]
    pub entry_point: Option<Spanned<String>>,
    #[ts(as = "Option<u32>")]
    pub max_handoffs: Option<Spanned<u32>>,
    #[ts(as = "Option<u32>")]
    pub max_tool_rounds: Option<Spanned<u32>>,
    /// Inline agents, or (crew directories) the ids of agent files.
    #[serde(default)]
    #[ts(as = "Vec<AgentFile>")]
    pub agents: Vec<Spanned<AgentEntry>>,
    /// Present = a strict registry (even when empty).
    #[ts(as = "Option<Vec<SignalFile>>")]
    pub signals: Option<Vec<Spanned<SignalFile>>>,
    pub routing: Option<RoutingFile>,
    pub settings: Option<SettingsFile>,
    pub tools: Option<ToolsFile>,
}

/// One entry of `agents:`.
#[derive(Debug)]
pub enum AgentEntry {
    /// An agent id whose definition lives in `agents/<id>.yaml`.
    Reference(String),
    /// An agent written out in place.
    Inline(Box<AgentFile>),
}

/// One agent, inline or in its own file.
#[derive(Clone, Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "AgentSpec", optional_fields)]
pub struct AgentFile {
    #[ts(as = "Option<String>")]
    pub id: Option<Spanned<String>>,
    pub name: Option<String>,
    pub role: Option<String>,
    pub description: Option<String>,
    pub objective: Option<String>,
    pub backstory: Option<String>,
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub tags: Vec<String>,
    pub system_prompt: Option<String>,
    /// A named model (`default`, `fast`) or `provider/model`; the Go engine's plain model name.
    pub model: Option<String>,
    /// Go engine (deprecated there): the provider of `model`.
    pub provider: Option<String>,
    /// Go engine (deprecated there): the provider's base URL.
    pub provider_url: Option<String>,
    pub primary: Option<ModelFile>,
    pub backup: Option<ModelFile>,
    #[ts(as = "Option<f64>")]
    pub temperature: Option<Spanned<f64>>,
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub tools: Vec<Spanned<String>>,
    /// This agent's tool rules (as `tools.policy`), before the crew's.
    #[ts(as = "Option<std::collections::BTreeMap<String, String>>")]
    pub tool_policy: Option<Entries<Spanned<String>, Spanned<String>>>,
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub handoff_targets: Vec<Spanned<String>>,
    pub is_terminal: Option<bool>,
    pub wait_for_signal: Option<bool>,
    /// The most of the history (in estimated tokens) this agent is shown.
    #[ts(as = "Option<u32>")]
    pub context_budget: Option<Spanned<u32>>,
    /// The most tokens one of its replies may take (default: its model's setting).
    #[ts(as = "Option<u32>")]
    pub max_tokens: Option<Spanned<u32>>,
}

/// The Go engine's `primary:` / `backup:` model block.
#[derive(Clone, Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "AgentModelSpec", optional_fields)]
pub struct ModelFile {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub provider_url: Option<String>,
}

/// One entry of the crew's `signals:` registry.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "SignalSpec", optional_fields)]
pub struct SignalFile {
    #[ts(as = "Option<String>")]
    pub name: Option<Spanned<String>>,
    #[ts(as = "Option<String>")]
    pub pattern: Option<Spanned<String>>,
    #[ts(as = "Option<String>")]
    pub behavior: Option<Spanned<String>>,
    pub description: Option<String>,
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub allowed_agents: Vec<Spanned<String>>,
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub valid_targets: Vec<Spanned<String>>,
    pub priority: Option<i32>,
    pub deprecated: Option<String>,
    /// Other spellings that match as the name does (`[QUESTON]` for `[QUESTION]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>")]
    pub aliases: Vec<Spanned<String>>,
}

/// The `routing:` section.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "RoutingSpec", optional_fields)]
pub struct RoutingFile {
    #[ts(as = "Option<String>")]
    pub strategy: Option<Spanned<String>>,
    /// Rules per emitting agent, in file order.
    #[ts(as = "Option<std::collections::BTreeMap<String, Vec<RuleFile>>>")]
    pub signals: Option<Entries<Spanned<String>, Vec<Spanned<RuleFile>>>>,
    /// Go engine: a fallback target per agent (added to its handoff targets).
    #[ts(as = "Option<std::collections::BTreeMap<String, String>>")]
    pub defaults: Option<Entries<Spanned<String>, Spanned<String>>>,
    #[ts(as = "Option<std::collections::BTreeMap<String, BehaviorFile>>")]
    pub agent_behaviors: Option<Entries<Spanned<String>, BehaviorFile>>,
    #[ts(as = "Option<std::collections::BTreeMap<String, GroupFile>>")]
    pub parallel_groups: Option<Entries<Spanned<String>, GroupFile>>,
    #[ts(as = "Option<String>")]
    pub on_no_signal: Option<Spanned<String>>,
    #[ts(as = "Option<String>")]
    pub on_loop: Option<Spanned<String>>,
    /// Scoring: the agent that writes the final answer.
    #[ts(as = "Option<String>")]
    pub finalizer: Option<Spanned<String>>,
    /// LLM and gatekeeper routing: the most routing decisions a run makes.
    #[ts(as = "Option<u32>")]
    pub max_iterations: Option<Spanned<u32>>,
    /// LLM routing: the router model.
    pub router: Option<RouterFile>,
    /// Gatekeeper routing: the external service.
    pub gatekeeper: Option<GatekeeperFile>,
}

/// One routing rule: when `signal` matches, go to `target`.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "RuleSpec", optional_fields)]
pub struct RuleFile {
    #[ts(as = "Option<String>")]
    pub signal: Option<Spanned<String>>,
    /// One target, a list (broadcast), or empty / `null` (terminate, pause).
    #[ts(optional, type = "string | Array<string> | null")]
    pub target: Option<Spanned<Targets>>,
    pub description: Option<String>,
    /// Other spellings of the signal that match as it does (added to its registry
    /// entry; the way to give them in a crew without a `signals:` section).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>")]
    pub aliases: Vec<Spanned<String>>,
}

/// A rule's target as written.
#[derive(Debug, Default)]
pub enum Targets {
    /// `target: ""`, `target: null` or no target.
    #[default]
    None,
    /// `target: student`.
    One(String),
    /// `target: [student, reporter]`.
    Many(Vec<Spanned<String>>),
}

/// `routing.agent_behaviors.<agent>`.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "BehaviorSpec", optional_fields)]
pub struct BehaviorFile {
    pub wait_for_signal: Option<bool>,
    pub is_terminal: Option<bool>,
    /// Go engine: accepted, no effect in Crewgraph.
    pub auto_route: Option<bool>,
    pub description: Option<String>,
}

/// `routing.parallel_groups.<group>`.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "GroupSpec", optional_fields)]
pub struct GroupFile {
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub agents: Vec<Spanned<String>>,
    /// `30s`, `2m`, or a number of seconds.
    #[ts(as = "Option<String>")]
    pub timeout: Option<Spanned<String>>,
    /// Go engine spelling of the timeout.
    #[ts(as = "Option<String>")]
    pub timeout_seconds: Option<Spanned<String>>,
    pub wait_for_all: Option<bool>,
    #[ts(as = "Option<String>")]
    pub next_agent: Option<Spanned<String>>,
    pub description: Option<String>,
}

/// `routing.router` (the `llm` strategy).
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "RouterSpec", optional_fields)]
pub struct RouterFile {
    pub model: Option<String>,
    #[ts(as = "Option<f64>")]
    pub temperature: Option<Spanned<f64>>,
    /// The most tokens one decision may take (default: the router model's setting).
    pub max_tokens: Option<u32>,
}

/// `routing.gatekeeper` (the `gatekeeper` strategy).
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "GatekeeperSpec", optional_fields)]
pub struct GatekeeperFile {
    #[ts(as = "Option<String>")]
    pub url: Option<Spanned<String>>,
    #[ts(as = "Option<String>")]
    pub timeout: Option<Spanned<String>>,
    pub retries: Option<u32>,
    /// The name of the keyring entry / environment variable holding the bearer token.
    pub token_env: Option<String>,
}

/// The Go engine's `settings:` block (also accepted in self-contained files).
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "SettingsSpec", optional_fields)]
pub struct SettingsFile {
    #[ts(as = "Option<u32>")]
    pub max_handoffs: Option<Spanned<u32>>,
    #[ts(as = "Option<u32>")]
    pub max_rounds: Option<Spanned<u32>>,
    #[ts(as = "Option<u32>")]
    pub max_tool_rounds: Option<Spanned<u32>>,
    #[ts(as = "Option<u32>")]
    pub timeout_seconds: Option<Spanned<u64>>,
    #[ts(as = "Option<u32>")]
    pub parallel_timeout_seconds: Option<Spanned<u64>>,
    pub language: Option<String>,
    /// The most of the history (in estimated tokens) an agent is shown.
    #[ts(as = "Option<u32>")]
    pub max_context_window: Option<Spanned<u32>>,
}

/// Settings of the Go engine that Crewgraph accepts without using (so its crew
/// directories load without a warning per line).
pub const GO_ENGINE_SETTINGS: &[&str] = &[
    "config_mode",
    "organization",
    "max_tool_output_chars",
    "tool_execution_timeout_seconds",
    "tool_result_timeout_seconds",
    "min_tool_timeout_millis",
    "stream_chunk_timeout_millis",
    "sse_keep_alive_seconds",
    "request_store_cleanup_minutes",
    "retry_backoff_min_millis",
    "retry_backoff_max_seconds",
    "max_input_size_kb",
    "min_agent_id_length",
    "max_agent_id_length",
    "max_request_body_size_kb",
    "stream_buffer_size",
    "max_stored_requests",
    "client_cache_ttl_minutes",
    "graceful_shutdown_check_millis",
    "timeout_warning_threshold_pct",
    "max_tokens_per_call",
    "max_tokens_per_day",
    "max_cost_per_day",
    "cost_alert_threshold",
    "max_memory_mb",
    "max_daily_memory_gb",
    "memory_alert_percent",
    "context_trim_percent",
    "slow_call_threshold_seconds",
    "max_errors_per_hour",
    "max_errors_per_day",
    "max_consecutive_errors",
    "max_calls_per_minute",
    "max_calls_per_hour",
    "max_calls_per_day",
    "block_on_quota_exceed",
];

/// Agent keys of the Go engine that Crewgraph accepts without using.
pub const GO_ENGINE_AGENT_KEYS: &[&str] = &["cost_limits"];

/// The top-level `tools:` section: the built-in `http_get`'s allow-list, and MCP
/// servers whose tools agents may use.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "ToolsSpec", optional_fields)]
pub struct ToolsFile {
    pub http_get: Option<HttpGetFile>,
    #[ts(as = "Option<std::collections::BTreeMap<String, ServerFile>>")]
    pub servers: Option<Entries<Spanned<String>, ServerFile>>,
    /// Tool (`server.tool`, `server.*`, a built-in name) → `allow`, `ask` or `deny`.
    #[ts(as = "Option<std::collections::BTreeMap<String, String>>")]
    pub policy: Option<Entries<Spanned<String>, Spanned<String>>>,
}

/// `tools.http_get`: the hosts `http_get` may reach.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "HttpGetSpec", optional_fields)]
pub struct HttpGetFile {
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub allow: Vec<String>,
}

/// One MCP server (`docs/tools.md`): a `command` to start (with `args`, `env`,
/// `cwd`) or a `url` to reach (with `headers`), and how long a call may take.
#[derive(Debug, Default, Deserialize, Serialize, TS)]
#[ts(export, rename = "ServerSpec", optional_fields)]
pub struct ServerFile {
    pub command: Option<String>,
    #[serde(default)]
    #[ts(as = "Option<Vec<String>>")]
    pub args: Vec<String>,
    /// Environment variables of the child process.
    #[ts(as = "Option<std::collections::BTreeMap<String, ServerValueFile>>")]
    pub env: Option<Entries<Spanned<String>, ServerValueFile>>,
    pub cwd: Option<String>,
    #[ts(as = "Option<String>")]
    pub url: Option<Spanned<String>>,
    /// Headers of every request to a `url` server.
    #[ts(as = "Option<std::collections::BTreeMap<String, ServerValueFile>>")]
    pub headers: Option<Entries<Spanned<String>, ServerValueFile>>,
    /// The most one call may take: `60s`, `2m`, or a number of seconds (default 60s).
    #[ts(as = "Option<String>")]
    pub timeout: Option<Spanned<String>>,
}

/// A value of `env` or `headers`: text as it is, or `{key: NAME, prefix?}` — a key
/// kept in the OS keyring or the environment, so no secret stands in the file.
#[derive(Debug, Serialize, TS)]
#[serde(untagged)]
#[ts(export, rename = "ServerValueSpec")]
pub enum ServerValueFile {
    Key {
        key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        prefix: Option<String>,
    },
    Text(String),
}

impl<'de> Deserialize<'de> for ServerValueFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl<'de> Visitor<'de> for ValueVisitor {
            type Value = ServerValueFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a text, or {key: NAME} naming a key kept in the OS keyring or the environment")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(ServerValueFile::Text(text.to_owned()))
            }
            fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
                Ok(ServerValueFile::Text(value.to_string()))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
                Ok(ServerValueFile::Text(value.to_string()))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
                Ok(ServerValueFile::Text(value.to_string()))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
                Ok(ServerValueFile::Text(value.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut key, mut prefix) = (None, None);
                while let Some(name) = map.next_key::<String>()? {
                    match name.as_str() {
                        "key" => key = Some(map.next_value::<String>()?),
                        "prefix" => prefix = Some(map.next_value::<String>()?),
                        other => return Err(de::Error::unknown_field(other, &["key", "prefix"])),
                    }
                }
                let key = key.filter(|k| !k.trim().is_empty()).ok_or_else(|| de::Error::missing_field("key"))?;
                Ok(ServerValueFile::Key { key, prefix })
            }
        }
        deserializer.deserialize_any(ValueVisitor)
    }
}

impl<K: Serialize, V: Serialize> Serialize for Entries<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Serialize for AgentEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentEntry::Reference(id) => serializer.serialize_str(id),
            AgentEntry::Inline(agent) => agent.serialize(serializer),
        }
    }
}

impl Serialize for Targets {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Targets::None => serializer.serialize_str(""),
            Targets::One(id) => serializer.serialize_str(id),
            Targets::Many(ids) => ids.serialize(serializer),
        }
    }
}

/// A YAML mapping kept in file order (rules and groups are ordered).
#[derive(Clone, Debug)]
pub struct Entries<K, V>(pub Vec<(K, V)>);

impl<K, V> Default for Entries<K, V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for Entries<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<K, V> {
            type Value = Entries<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
            // `signals:` with nothing after it.
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
                if value.is_empty() {
                    Ok(Entries(Vec::new()))
                } else {
                    Err(E::invalid_type(de::Unexpected::Str(value), &self))
                }
            }
        }
        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}

impl<'de> Deserialize<'de> for AgentEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = AgentEntry;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an agent (a mapping with id, name, …) or an agent id")
            }
            fn visit_str<E: de::Error>(self, id: &str) -> Result<Self::Value, E> {
                Ok(AgentEntry::Reference(id.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let agent = AgentFile::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(AgentEntry::Inline(Box::new(agent)))
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

/// True for the scalars YAML means as "nothing": empty, `null`, `~`.
pub fn is_null(text: &str) -> bool {
    matches!(text.trim(), "" | "null" | "Null" | "NULL" | "~")
}

impl<'de> Deserialize<'de> for Targets {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TargetsVisitor;
        impl<'de> Visitor<'de> for TargetsVisitor {
            type Value = Targets;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an agent or group id, a list of ids, or nothing")
            }
            fn visit_str<E: de::Error>(self, id: &str) -> Result<Self::Value, E> {
                Ok(if is_null(id) { Targets::None } else { Targets::One(id.to_owned()) })
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Targets::None)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Targets::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut ids = Vec::new();
                while let Some(id) = seq.next_element()? {
                    ids.push(id);
                }
                Ok(Targets::Many(ids))
            }
        }
        deserializer.deserialize_any(TargetsVisitor)
    }
}
