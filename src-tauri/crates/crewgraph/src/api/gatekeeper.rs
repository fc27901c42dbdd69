//! The `gatekeeper` strategy's decider (DESIGN.md §5, seed 004): an external HTTP
//! service asked after each agent's turn, the engine's
//! [`RouteDecider`] over reqwest. A run's wiring builds one from the crew's
//! `routing.gatekeeper` with [`GatekeeperClient::connect`], which refuses a URL that
//! is not http(s) or does not resolve, and finds the bearer token, before the run
//! starts.
//!
//! Each decision is one `POST <url>` of JSON:
//!
//! ```json
//! {"original_query": "A polished note on bees",
//!  "workflow_history": [{"agent_id": "lead", "action": "Plan: research, then write.", "timestamp": "2026-11-28T10:00:01.000Z"}],
//!  "current_agent": "lead", "current_output": "Plan: research, then write.",
//!  "available_agents": [{"agent_id": "writer", "name": "Writer", "role": "Writes notes", "description": "", "capabilities": ["prose"]}],
//!  "iteration": 1, "max_iterations": 10}
//! ```
//!
//! (`current_output` is the agent's reply as JSON when it is a JSON object or array,
//! else as text; a repeated request after a refused answer adds
//! `"rejected": {"answer", "problem"}`.) The answer is
//! `{"workflow_complete": false, "next_agent": "writer", "next_instruction": "…",
//! "confidence": 0.9}`, `reasoning` optional. Each try has the crew's `timeout`; a
//! timeout, a connection error, a 429 or a 5xx is tried again up to `retries` times
//! with a short backoff; any other status fails at once. The token goes in the
//! `Authorization` header only, and is blanked from anything the service's answers
//! put into events or errors.

use std::net::ToSocketAddrs;
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::crew::Gatekeeper;
use crewgraph_engine::routing::decider::{
    parse, CatalogEntry, DecideError, Decision, DecisionContext, Rejected, RouteDecider, WorkflowStep,
};
use crewgraph_engine::AgentId;
use crewgraph_llm::keys::{self, Secret};
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The most bytes of an answer read.
pub const MAX_ANSWER_BYTES: usize = 1 << 20;
/// The wait before the first retry; it doubles for each next one.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(200);
/// The longest wait between tries.
pub const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// How much of an error answer's body an error message quotes.
const QUOTED_CHARS: usize = 300;

/// Why a gatekeeper cannot be used (said before the run starts).
#[derive(Debug, thiserror::Error)]
pub enum GatekeeperError {
    /// The URL does not parse, or names no host.
    #[error("the gatekeeper URL '{url}' is not a valid web address: {why}")]
    BadUrl { url: String, why: String },
    /// The URL is not http or https.
    #[error("the gatekeeper URL '{url}' must start with http:// or https://")]
    NotHttp { url: String },
    /// The URL's host name does not resolve to an address.
    #[error("the gatekeeper URL '{url}' does not resolve: {why}")]
    DoesNotResolve { url: String, why: String },
    /// `token_env` names a token found nowhere.
    #[error("the gatekeeper's token '{name}' is in neither the OS keyring nor the environment (set {vars})")]
    NoToken { name: String, vars: String },
    /// The HTTP client could not be built.
    #[error("cannot set up the HTTP client for the gatekeeper: {0}")]
    Client(String),
}

/// What one `POST` carries.
#[derive(Serialize)]
struct Ask<'a> {
    original_query: &'a str,
    workflow_history: &'a [WorkflowStep],
    current_agent: &'a AgentId,
    current_output: Value,
    available_agents: &'a [CatalogEntry],
    iteration: u32,
    max_iterations: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    rejected: Option<RejectedAnswer<'a>>,
}

impl<'a> Ask<'a> {
    /// The request for `context`, with the refused answer when it is asked again.
    fn new(context: &'a DecisionContext, rejected: Option<&'a Rejected>) -> Self {
        Ask {
            original_query: &context.original_query,
            workflow_history: &context.workflow_history,
            current_agent: &context.current_agent,
            current_output: output_value(&context.current_output),
            available_agents: &context.available_agents,
            iteration: context.iteration,
            max_iterations: context.max_iterations,
            rejected: rejected.map(|r| RejectedAnswer { answer: &r.raw, problem: &r.problem }),
        }
    }
}

/// The JSON a gatekeeper service is sent for `context` (and, when it is asked again,
/// the answer refused): what [`GatekeeperClient`] posts, and what a scripted
/// gatekeeper keeps of each question.
pub fn request_body(context: &DecisionContext, rejected: Option<&Rejected>) -> Value {
    serde_json::to_value(Ask::new(context, rejected)).unwrap_or(Value::Null)
}

/// The refused answer, sent back when the service is asked again.
#[derive(Serialize)]
struct RejectedAnswer<'a> {
    answer: &'a str,
    problem: &'a str,
}

/// An agent's reply as the service gets it: JSON when it is a JSON object or array,
/// else the text.
fn output_value(reply: &str) -> Value {
    match serde_json::from_str::<Value>(reply.trim()) {
        Ok(value @ (Value::Object(_) | Value::Array(_))) => value,
        _ => Value::String(reply.to_owned()),
    }
}

/// One failed try, and whether another may succeed.
struct Failure {
    why: String,
    retry: bool,
}

/// The gatekeeper service of one crew.
pub struct GatekeeperClient {
    url: reqwest::Url,
    timeout: Duration,
    retries: u32,
    token: Option<Secret>,
    client: reqwest::Client,
}

impl GatekeeperClient {
    /// A client for `config`: the URL must be http(s) and resolve, and a token
    /// `token_env` names must be found — in the OS keyring or `CREWGRAPH_<NAME>_API_KEY`
    /// ([`keys::find`]), else the environment variable of that very name.
    pub async fn connect(config: &Gatekeeper) -> Result<Self, GatekeeperError> {
        let raw = config.url.trim();
        let url = reqwest::Url::parse(raw).map_err(|e| GatekeeperError::BadUrl { url: raw.to_owned(), why: e.to_string() })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(GatekeeperError::NotHttp { url: raw.to_owned() });
        }
        let Some(host) = url.host_str().filter(|h| !h.is_empty()).map(str::to_owned) else {
            return Err(GatekeeperError::BadUrl { url: raw.to_owned(), why: "it names no host".into() });
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
        let lookup = tokio::task::spawn_blocking(move || (host.as_str(), port).to_socket_addrs().map(|a| a.count()));
        let unresolved = |why: String| GatekeeperError::DoesNotResolve { url: raw.to_owned(), why };
        match tokio::time::timeout(config.timeout.max(Duration::from_secs(1)), lookup).await {
            Err(_) => return Err(unresolved(format!("no answer from the name service within {}", humantime(config.timeout)))),
            Ok(Err(e)) => return Err(unresolved(e.to_string())),
            Ok(Ok(Err(e))) => return Err(unresolved(e.to_string())),
            Ok(Ok(Ok(0))) => return Err(unresolved("it has no address".into())),
            Ok(Ok(Ok(_))) => {}
        }
        let token = match &config.token_env {
            None => None,
            Some(name) => Some(keys::find_named(name).ok_or_else(|| {
                let mut vars = keys::env_names(name);
                vars.push(name.clone());
                GatekeeperError::NoToken { name: name.clone(), vars: vars.join(" or ") }
            })?),
        };
        let client = reqwest::Client::builder()
            .connect_timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("crewgraph/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| GatekeeperError::Client(e.to_string()))?;
        Ok(GatekeeperClient { url, timeout: config.timeout, retries: config.retries, token, client })
    }

    /// `text` with the token blanked out (a service may echo what it was sent).
    fn hide(&self, text: String) -> String {
        match &self.token {
            Some(token) if !token.expose().is_empty() && text.contains(token.expose()) => text.replace(token.expose(), "[hidden]"),
            _ => text,
        }
    }

    /// One `POST`: the answer's text, or why there is none.
    async fn try_once(&self, body: &[u8]) -> Result<String, Failure> {
        let mut request = self
            .client
            .post(self.url.clone())
            .timeout(self.timeout)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body.to_vec());
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose());
        }
        let url = &self.url;
        let failed = |e: reqwest::Error| {
            let why = if e.is_timeout() {
                format!("{url} did not answer within {}", humantime(self.timeout))
            } else {
                crewgraph_llm::failure::describe(&e, url.as_str(), "the gatekeeper").text
            };
            Failure { why, retry: true }
        };
        let mut response = request.send().await.map_err(failed)?;
        let status = response.status();
        let mut answer = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            answer.extend_from_slice(&chunk);
            if answer.len() > MAX_ANSWER_BYTES {
                return Err(Failure { why: format!("{url} answered with more than {MAX_ANSWER_BYTES} bytes"), retry: false });
            }
        }
        let text = String::from_utf8_lossy(&answer).into_owned();
        if status.is_success() {
            return Ok(text);
        }
        let quoted: String = text.trim().chars().take(QUOTED_CHARS).collect();
        let quoted = if quoted.is_empty() { String::new() } else { format!(": {quoted}") };
        Err(Failure {
            why: format!("{url} answered {status}{quoted}"),
            retry: status.is_server_error() || status == reqwest::StatusCode::TOO_MANY_REQUESTS,
        })
    }

    /// `POST`s `body`, trying again after a timeout, a connection error, a 429 or a
    /// 5xx, up to `retries` times.
    async fn post(&self, body: &[u8]) -> Result<String, DecideError> {
        let mut retried = 0;
        loop {
            match self.try_once(body).await {
                Ok(answer) => return Ok(answer),
                Err(failure) if failure.retry && retried < self.retries => {
                    retried += 1;
                    let wait = FIRST_BACKOFF.saturating_mul(1 << (retried - 1).min(16)).min(MAX_BACKOFF);
                    tokio::time::sleep(wait).await;
                }
                Err(failure) => {
                    let tries = retried + 1;
                    let tries = if tries == 1 { "1 try".to_owned() } else { format!("{tries} tries") };
                    return Err(DecideError::Unavailable(self.hide(format!("{} ({tries})", failure.why))));
                }
            }
        }
    }
}

#[async_trait]
impl RouteDecider for GatekeeperClient {
    async fn decide(
        &self,
        context: &DecisionContext,
        rejected: Option<&Rejected>,
        cancel: &CancellationToken,
    ) -> Result<Decision, DecideError> {
        let body = serde_json::to_vec(&Ask::new(context, rejected))
            .map_err(|e| DecideError::Unavailable(format!("the request does not encode as JSON: {e}")))?;
        let answer = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(DecideError::Cancelled),
            answer = self.post(&body) => answer?,
        };
        parse(&answer).map_err(|error| match error {
            DecideError::Invalid { raw, problem } => DecideError::Invalid { raw: self.hide(raw), problem: self.hide(problem) },
            other => other,
        })
    }
}

/// The token named `name`: the keyring or `CREWGRAPH_<NAME>_API_KEY`, else `$name`.
/// A duration as people write it (`10s`, `1500ms`).
fn humantime(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(url: &str) -> Gatekeeper {
        Gatekeeper { url: url.into(), timeout: Duration::from_secs(2), retries: 0, token_env: None }
    }

    #[tokio::test]
    async fn urls_that_are_not_http_or_do_not_resolve_are_refused_by_name() {
        for (url, expected) in [
            ("ftp://example.com/route", "the gatekeeper URL 'ftp://example.com/route' must start with http:// or https://"),
            ("not a url", "the gatekeeper URL 'not a url' is not a valid web address"),
            ("http://gatekeeper.invalid/route", "the gatekeeper URL 'http://gatekeeper.invalid/route' does not resolve"),
        ] {
            let error = GatekeeperClient::connect(&config(url)).await.err().expect("refused").to_string();
            assert!(error.starts_with(expected), "{error}");
        }
        assert!(GatekeeperClient::connect(&config("http://127.0.0.1:9/route")).await.is_ok(), "an address needs no lookup");
    }

    #[tokio::test]
    async fn a_token_that_is_nowhere_is_an_error_naming_where_it_was_looked_for() {
        let config = Gatekeeper { token_env: Some("CREWGRAPH_TEST_NO_SUCH_TOKEN_7f3a".into()), ..config("http://127.0.0.1:9/") };
        let error = GatekeeperClient::connect(&config).await.err().expect("refused").to_string();
        assert!(error.contains("CREWGRAPH_CREWGRAPH_TEST_NO_SUCH_TOKEN_7F3A_API_KEY or CREWGRAPH_TEST_NO_SUCH_TOKEN_7f3a"), "{error}");
    }

    #[test]
    fn replies_that_are_json_go_as_json() {
        assert_eq!(output_value(r#" {"draft": "x"} "#), serde_json::json!({"draft": "x"}));
        assert_eq!(output_value("42"), Value::String("42".into()), "only objects and arrays");
        assert_eq!(output_value("Plain text."), Value::String("Plain text.".into()));
    }
}
