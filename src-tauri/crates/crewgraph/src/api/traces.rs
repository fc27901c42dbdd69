//! Runs as OpenTelemetry traces (docs/observability.md): Settings → Traces, kept in
//! the store's settings under `traces` ([`TraceSettings`]), or the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (`…_TRACES_ENDPOINT`) and `OTEL_EXPORTER_OTLP_HEADERS`
//! environment variables; off when neither says otherwise.
//!
//! Every run leg of this API — from the window, `crewgraph serve` or `crewgraph
//! run` — gets its wiring in [`Api::deps`](super::Api), which wraps the host's sink
//! in a [`TracedSink`] when tracing is on ([`Api::traced`]). One [`Exporter`] serves
//! every run while the configuration stays the same; a changed one starts another
//! (the old one sends what it holds and ends). A header's secret is a `{key: NAME}`
//! reference, as in a tool server's headers: the key from the OS keyring, else the
//! environment — never stored. Nothing here can fail a run: a key not found, an
//! endpoint that is no URL, a collector that is down is said in the status
//! ([`TraceStatus`]) and the server log, and the run goes on untraced or with its
//! spans dropped.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crewgraph_engine::run::EventSink;
use crewgraph_engine::Crew;
use crewgraph_llm::keys;
use crewgraph_llm::local::MODEL_NAME;
use crewgraph_llm::settings::{Provider, Resolved};
use crewgraph_otel::{endpoint_from_env, AgentFacts, CrewFacts, ExportConfig, Exporter, TracedSink};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode, RunOptions};

/// The setting traces are configured under.
pub const SETTING: &str = "traces";

/// The environment variable of the GenAI instrumentations that turns content
/// capture on (`true`).
const CAPTURE_ENV: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// Settings → Traces.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TraceSettings {
    /// Send every run's trace (off by default; `OTEL_EXPORTER_OTLP_ENDPOINT` turns
    /// it on without this).
    #[serde(default)]
    pub enabled: bool,
    /// The collector's OTLP/HTTP endpoint: its base (`http://127.0.0.1:6006`, to
    /// which `/v1/traces` is added) or its traces URL. None: the environment's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(example = "http://127.0.0.1:6006")]
    pub endpoint: Option<String>,
    /// Headers each request carries: a value as it is, or `{key: NAME, prefix?}`,
    /// the key `NAME` from the OS keyring or the environment (`Authorization:
    /// {key: langfuse, prefix: "Basic "}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[ts(optional, type = "Record<string, string | { key: string, prefix?: string }>")]
    #[schema(value_type = Object)]
    pub headers: BTreeMap<String, Value>,
    /// Put prompt and reply text in the spans (the run's input, the replies, tool
    /// arguments and results, a router's reasoning). Off: only names, models,
    /// token counts, signals and times.
    #[serde(default)]
    pub capture_content: bool,
}

/// Where tracing stands now.
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct TraceStatus {
    /// Runs started now are traced.
    pub active: bool,
    /// What turned it on: `settings` or `environment`; None when off.
    pub source: Option<String>,
    /// Where the spans go (the traces URL).
    pub endpoint: Option<String>,
    /// Prompt and reply text goes into the spans.
    pub capture_content: bool,
    /// Spans the collector took (since the exporter started).
    pub exported: u64,
    /// Spans dropped because the queue was full: the collector slow or down.
    pub dropped: u64,
    /// Run events dropped because their queue was full (the exporter could not
    /// keep up with the runs): their runs' traces are cut short. Absent when none
    /// were.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "bigint")]
    pub dropped_events: Option<u64>,
    /// Spans sent that the collector did not take.
    pub failed: u64,
    /// Why runs are not traced though asked to be, or the last sending error.
    pub problem: Option<String>,
}

/// Settings → Traces with where tracing stands.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct TracesView {
    pub settings: TraceSettings,
    pub status: TraceStatus,
}

/// What tracing is to do now, worked out from the settings and the environment.
#[derive(Debug, PartialEq)]
struct Target {
    config: ExportConfig,
    source: &'static str,
    capture_content: bool,
}

/// The exporter of this API's runs.
#[derive(Debug, Default)]
pub(crate) struct Traces {
    current: Mutex<Option<(ExportConfig, Arc<Exporter>)>>,
    /// Why runs are not traced though asked to be.
    problem: Mutex<Option<String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// A header's value, its key looked up.
fn header_value(name: &str, value: &Value) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Object(map) => {
            let key =
                map.get("key").and_then(Value::as_str).ok_or_else(|| format!("the header {name} is neither text nor {{key: NAME}}"))?;
            let prefix = map.get("prefix").and_then(Value::as_str).unwrap_or("");
            let secret = keys::find_named(key).ok_or_else(|| {
                format!("the traces header {name} needs the key '{key}', and it is in neither {}", keys::named_places(key))
            })?;
            Ok(format!("{prefix}{}", secret.expose()))
        }
        _ => Err(format!("the header {name} is neither text nor {{key: NAME}}")),
    }
}

fn env_capture() -> bool {
    std::env::var(CAPTURE_ENV).is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// The settings checked as a person saves them.
fn check(settings: &TraceSettings) -> Result<(), ApiError> {
    let invalid = |why: String| Err(ApiError::new(ApiErrorCode::InvalidInput, why));
    if let Some(endpoint) = settings.endpoint.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            return invalid(format!("the traces endpoint '{endpoint}' is not an http:// or https:// URL"));
        }
    }
    if settings.enabled && settings.endpoint.as_deref().is_none_or(|e| e.trim().is_empty()) && endpoint_from_env().is_none() {
        return invalid("traces are on but no endpoint is given (here, or in OTEL_EXPORTER_OTLP_ENDPOINT)".into());
    }
    for (name, value) in &settings.headers {
        if name.trim().is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return invalid(format!("'{name}' is not a header name"));
        }
        let shape_ok = match value {
            Value::String(_) => true,
            Value::Object(map) => {
                map.get("key").is_some_and(Value::is_string)
                    && map.get("prefix").is_none_or(Value::is_string)
                    && map.keys().all(|k| k == "key" || k == "prefix")
            }
            _ => false,
        };
        if !shape_ok {
            return invalid(format!("the header {name} is neither text nor {{key: NAME, prefix?: TEXT}}"));
        }
    }
    Ok(())
}

impl Api {
    /// Settings → Traces as stored (the defaults when never set).
    pub async fn trace_settings(&self) -> Result<TraceSettings, ApiError> {
        let Some(store) = &self.settings else { return Ok(TraceSettings::default()) };
        match store.setting(SETTING).await? {
            None => Ok(TraceSettings::default()),
            Some(value) => serde_json::from_value(value)
                .map_err(|e| ApiError::new(ApiErrorCode::Store, format!("the stored trace settings cannot be read: {e}"))),
        }
    }

    /// Keeps Settings → Traces; runs started from now on follow them.
    pub async fn set_trace_settings(&self, settings: TraceSettings) -> Result<TracesView, ApiError> {
        check(&settings)?;
        let mut settings = settings;
        settings.endpoint = settings.endpoint.map(|e| e.trim().to_owned()).filter(|e| !e.is_empty());
        self.settings_store()?.set_setting(SETTING, &serde_json::to_value(&settings).unwrap_or_default()).await?;
        self.traces_view().await
    }

    /// Settings → Traces and where tracing stands.
    pub async fn traces_view(&self) -> Result<TracesView, ApiError> {
        let settings = self.trace_settings().await?;
        let mut status = TraceStatus::default();
        match self.trace_target(&settings) {
            Ok(Some(target)) => {
                status.active = true;
                status.source = Some(target.source.to_owned());
                status.endpoint = Some(target.config.traces_url());
                status.capture_content = target.capture_content;
                let current = lock(&self.traces.current);
                if let Some((_, exporter)) = current.as_ref().filter(|(config, _)| *config == target.config) {
                    let stats = exporter.stats();
                    (status.exported, status.dropped, status.dropped_events, status.failed, status.problem) = (
                        stats.exported,
                        stats.dropped,
                        (stats.dropped_events > 0).then_some(stats.dropped_events),
                        stats.failed,
                        stats.last_error,
                    );
                }
            }
            Ok(None) => {}
            Err(problem) => status.problem = Some(problem),
        }
        Ok(TracesView { settings, status })
    }

    /// What tracing is to do: None when off; Err why it cannot though asked to.
    fn trace_target(&self, settings: &TraceSettings) -> Result<Option<Target>, String> {
        let from_env = endpoint_from_env();
        let (endpoint, source) = match (settings.enabled, settings.endpoint.as_deref(), from_env) {
            (true, Some(endpoint), _) => (endpoint.to_owned(), "settings"),
            (true, None, Some(endpoint)) => (endpoint, "settings"),
            (true, None, None) => return Err("traces are on but no endpoint is given (in Settings or OTEL_EXPORTER_OTLP_ENDPOINT)".into()),
            (false, _, Some(endpoint)) => (endpoint, "environment"),
            (false, _, None) => return Ok(None),
        };
        let mut config = ExportConfig::new(endpoint);
        if settings.enabled {
            for (name, value) in &settings.headers {
                config.headers.push((name.clone(), header_value(name, value)?));
            }
        }
        let capture_content = settings.capture_content || env_capture();
        Ok(Some(Target { config, source, capture_content }))
    }

    /// `sink`, tracing the run when tracing is on (see the module's documentation);
    /// as it is otherwise.
    pub(crate) async fn traced(&self, crew: &Crew, options: &RunOptions, sink: Arc<dyn EventSink>) -> Arc<dyn EventSink> {
        let settings = match self.trace_settings().await {
            Ok(settings) => settings,
            Err(error) => {
                tracing::warn!("traces: {}", error.message);
                TraceSettings::default()
            }
        };
        let target = match self.trace_target(&settings) {
            Ok(Some(target)) => target,
            Ok(None) => return sink,
            Err(problem) => {
                let mut told = lock(&self.traces.problem);
                if told.as_deref() != Some(problem.as_str()) {
                    tracing::warn!("traces: runs are not traced: {problem}");
                    *told = Some(problem);
                }
                return sink;
            }
        };
        let exporter = {
            let mut current = lock(&self.traces.current);
            match current.as_ref().filter(|(config, _)| *config == target.config) {
                Some((_, exporter)) => exporter.clone(),
                None => match Exporter::start(&target.config) {
                    Ok(exporter) => {
                        tracing::info!("traces: runs are traced to {}", exporter.url());
                        *current = Some((target.config.clone(), exporter.clone()));
                        exporter
                    }
                    Err(error) => {
                        tracing::warn!("traces: runs are not traced: {error}");
                        return sink;
                    }
                },
            }
        };
        *lock(&self.traces.problem) = None;
        let facts = self.crew_facts(crew, options).await;
        Arc::new(TracedSink::new(sink, exporter, &facts, target.capture_content))
    }

    /// Sends the spans waiting to go, waiting at most `timeout`: what a process
    /// does before it ends (`crewgraph run`, `crewgraph serve`, the window). What
    /// was lost, in words, when spans were dropped, not taken, or still waiting.
    pub fn flush_traces(&self, timeout: Duration) -> Option<String> {
        let exporter = lock(&self.traces.current).as_ref().map(|(_, exporter)| exporter.clone())?;
        let flushed = exporter.flush(timeout);
        let stats = exporter.stats();
        let mut lost = Vec::new();
        if stats.dropped > 0 {
            lost.push(format!("{} dropped (the queue was full)", stats.dropped));
        }
        if stats.dropped_events > 0 {
            lost.push(format!("{} run events dropped (the exporter fell behind; their traces are cut)", stats.dropped_events));
        }
        if stats.failed > 0 {
            lost.push(format!("{} not taken ({})", stats.failed, stats.last_error.as_deref().unwrap_or("no reason given")));
        }
        if !flushed {
            lost.push(format!("some still unsent after {} s", timeout.as_secs()));
        }
        (!lost.is_empty()).then(|| format!("traces: of the spans for {}, {}", exporter.url(), lost.join("; ")))
    }

    /// The crew as its spans describe it: each agent's model and provider.
    async fn crew_facts(&self, crew: &Crew, options: &RunOptions) -> CrewFacts {
        let stand_in = |provider: &str, model: &str| -> Vec<AgentFacts> {
            crew.agents
                .iter()
                .map(|a| AgentFacts { id: a.id.to_string(), name: a.name.clone(), model: model.to_owned(), provider: provider.to_owned() })
                .collect()
        };
        let agents = if options.typed.is_some() {
            stand_in("crewgraph.typed", "typed")
        } else if options.script.is_some() {
            stand_in("crewgraph.scripted", "scripted")
        } else {
            let settings = self.model_settings().await.unwrap_or_default();
            let chosen = options.model.as_deref().map(crewgraph_engine::ModelSpec::named);
            crew.agents
                .iter()
                .map(|agent| {
                    let spec = chosen.clone().or_else(|| agent.model_spec());
                    let (provider, model) = match settings.resolve(spec.as_ref()) {
                        Ok(Resolved::Remote(_, config)) => match config.provider {
                            Provider::Local => ("crewgraph.local".to_owned(), MODEL_NAME.to_owned()),
                            provider => (provider.as_str().to_owned(), config.model.clone()),
                        },
                        Ok(Resolved::Local) => ("crewgraph.local".to_owned(), MODEL_NAME.to_owned()),
                        Err(_) => ("unknown".to_owned(), spec.map_or_else(|| "default".to_owned(), |s| s.to_string())),
                    };
                    AgentFacts { id: agent.id.to_string(), name: agent.name.clone(), model, provider }
                })
                .collect()
        };
        CrewFacts { name: crew.name.clone(), agents }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_that_cannot_work_are_refused_in_words() {
        let with = |endpoint: &str| TraceSettings { enabled: true, endpoint: Some(endpoint.into()), ..TraceSettings::default() };
        assert!(check(&with("http://127.0.0.1:6006")).is_ok());
        assert!(check(&with("127.0.0.1:6006")).unwrap_err().message.contains("not an http"));
        let mut headers = with("http://127.0.0.1:6006");
        headers.headers.insert("Authorization".into(), serde_json::json!({"key": "langfuse", "prefix": "Basic "}));
        headers.headers.insert("x-team".into(), serde_json::json!("crew"));
        assert!(check(&headers).is_ok());
        headers.headers.insert("x-bad".into(), serde_json::json!({"secret": "s3cret"}));
        assert!(check(&headers).unwrap_err().message.contains("x-bad"));
    }

    #[test]
    fn a_header_key_is_looked_up_and_a_missing_one_named() {
        let var = "CREWGRAPH_TRACES_TEST_TOKEN_4c1";
        std::env::set_var(var, "s3cret");
        assert_eq!(header_value("Authorization", &serde_json::json!({"key": var, "prefix": "Bearer "})).unwrap(), "Bearer s3cret");
        let missing = header_value("Authorization", &serde_json::json!({"key": "CREWGRAPH_TRACES_TEST_NONE_4c1"})).unwrap_err();
        assert!(missing.contains("CREWGRAPH_TRACES_TEST_NONE_4c1"), "{missing}");
    }
}
