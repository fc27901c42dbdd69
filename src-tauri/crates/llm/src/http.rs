//! What every HTTP provider shares: sending a request with retries, and reading its
//! server-sent events with timeouts and cancellation.
//!
//! - **Timeouts**: connecting, the first byte of the answer (its head), and the
//!   silence between two pieces of a stream (idle), each from [`Limits`].
//! - **Retries**: 429, 5xx, a refused, reset or cut connection before the first
//!   byte, and a first-byte timeout are tried again, up to [`Limits::retries`] times, after an exponential backoff with jitter,
//!   or after the server's `Retry-After` when it gives one (seconds or a date).
//! - **Errors** name the provider and where it is, and carry the provider's own
//!   message; a refused key (401/403) says to check the key; a failed connection or
//!   a 2xx answer that is not a stream is said in words ([`crate::failure`]).
//! - **Addresses**: a path is joined to a base URL as URLs are ([`endpoint`]), so a
//!   base with a query (`?api-version=…`) keeps it at the end.
//! - **Cancellation** drops the request or the stream at once, which closes the
//!   connection.

use std::time::{Duration, SystemTime};

use bytes::Bytes;
use crewgraph_engine::run::LlmError;
use eventsource_stream::{Event, EventStream, Eventsource};
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, CONTENT_TYPE, RETRY_AFTER};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::failure;
use crate::keys::Secret;

/// What is asked about when nothing answers ("is the model server running?").
const MODEL_SERVER: &str = "the model server";

/// How long to wait, and how often to try again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    #[serde(with = "millis")]
    pub connect: Duration,
    /// From sending the request to the answer's head.
    #[serde(with = "millis")]
    pub first_byte: Duration,
    /// The longest silence inside a streamed answer.
    #[serde(with = "millis")]
    pub idle: Duration,
    /// Tries after the first one.
    pub retries: u32,
    /// The first backoff; each retry waits about twice as long.
    #[serde(with = "millis")]
    pub backoff: Duration,
    /// The longest wait before a retry, `Retry-After` included: a server that asks
    /// for more fails at once, saying how long it asked for.
    #[serde(with = "millis")]
    pub max_wait: Duration,
    /// The longest a whole streamed reply may take, from its first byte to its end
    /// (a server that streams forever is stopped).
    #[serde(with = "millis")]
    pub reply: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(120),
            idle: Duration::from_secs(60),
            retries: 2,
            backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(30),
            reply: Duration::from_secs(600),
        }
    }
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(value.as_millis() as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        u64::deserialize(deserializer).map(Duration::from_millis)
    }
}

/// A streamed answer's server-sent events.
pub type Events = EventStream<BoxStream<'static, Result<Bytes, reqwest::Error>>>;

/// A provider's HTTP client: one connection pool, its limits, and its name for errors.
#[derive(Clone, Debug)]
pub struct Transport {
    client: reqwest::Client,
    limits: Limits,
    /// `openai at http://127.0.0.1:8080/v1`: how errors name the provider.
    label: String,
    /// The key sent, so no error repeats it (a server may echo it back).
    secret: Option<Secret>,
}

impl Transport {
    pub fn new(label: String, limits: Limits) -> Result<Self, LlmError> {
        let client = reqwest::Client::builder()
            .connect_timeout(limits.connect)
            .build()
            .map_err(|e| LlmError::Failed(format!("{label}: cannot set up HTTP: {e}")))?;
        Ok(Transport { client, limits, label, secret: None })
    }

    /// Keeps `secret` out of every error this transport makes.
    pub fn hiding(mut self, secret: Option<&Secret>) -> Self {
        self.secret = secret.filter(|s| !s.expose().is_empty()).cloned();
        self
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// An error naming the provider (with the key, should the text hold it, hidden).
    pub fn error(&self, what: impl std::fmt::Display) -> LlmError {
        let text = format!("{}: {what}", self.label);
        LlmError::Failed(match &self.secret {
            Some(secret) => text.replace(secret.expose(), "[hidden]"),
            None => text,
        })
    }

    /// POSTs `body` to `url` and returns the answer's events once its head says 2xx,
    /// retrying what may pass.
    pub async fn post_events(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: &serde_json::Value,
        cancel: &CancellationToken,
    ) -> Result<Events, LlmError> {
        let response = self.post(url, headers, body, cancel).await?;
        let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        // No type at all is read as a stream: some servers leave it out.
        if !content_type.is_empty() && !content_type.to_ascii_lowercase().starts_with("text/event-stream") {
            let body = read_text(response, self.limits.idle).await;
            return Err(self.error(failure::not_a_reply(&content_type, &body)));
        }
        Ok(response.bytes_stream().boxed().eventsource())
    }

    /// POSTs `body` and returns the successful answer's head, retrying 429, 5xx,
    /// refused, reset or cut connections and first-byte timeouts.
    pub async fn post(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: &serde_json::Value,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, LlmError> {
        let body = serde_json::to_vec(body).map_err(|e| self.error(format!("cannot encode the request: {e}")))?;
        let mut attempt = 0;
        loop {
            let send = self
                .client
                .post(url)
                .headers(headers.clone())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone())
                .send();
            let outcome = tokio::select! {
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                outcome = tokio::time::timeout(self.limits.first_byte, send) => outcome,
            };
            let (failure, wait) = match outcome {
                Err(_) => (self.error(format!("no answer within {} s", self.limits.first_byte.as_secs_f64())), None),
                Ok(Err(error)) => {
                    let failure = failure::describe(&error, url, MODEL_SERVER);
                    if !failure.transient {
                        return Err(self.error(failure.text));
                    }
                    (self.error(failure.text), None)
                }
                Ok(Ok(response)) if response.status().is_success() => return Ok(response),
                Ok(Ok(response)) => {
                    let status = response.status();
                    let retry_after = retry_after(response.headers());
                    let text = read_text(response, self.limits.idle).await;
                    let failure = self.status_error(status, &text);
                    // A refusal of tools (llama.cpp says it with a 500) is the same
                    // the next time: the caller offers them another way at once.
                    if !retryable(status) || failure::tools_refused(&text) {
                        return Err(failure);
                    }
                    (failure, retry_after)
                }
            };
            if attempt >= self.limits.retries {
                let tries = attempt + 1;
                return Err(match failure {
                    LlmError::Failed(text) if tries > 1 => LlmError::Failed(format!("{text} (tried {tries} times)")),
                    other => other,
                });
            }
            let wait = match wait {
                Some(wait) if wait > self.limits.max_wait => {
                    return Err(self.error(format!("rate limited: the server asks to wait {} s before trying again", wait.as_secs())))
                }
                Some(wait) => wait,
                None => backoff(&self.limits, attempt),
            };
            tokio::select! {
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                _ = tokio::time::sleep(wait) => {}
            }
            attempt += 1;
        }
    }

    /// The error for a failure the server sent as an answer (an error object in a
    /// stream): a request too long for the model's window is [`LlmError::ContextOverflow`].
    pub fn failed_answer(&self, body: &str) -> LlmError {
        let message = provider_message(body);
        if failure::context_overflow(body) {
            return match self.error(message) {
                LlmError::Failed(said) => LlmError::ContextOverflow { said, window: failure::context_limit(body) },
                other => other,
            };
        }
        self.error(message)
    }

    /// The error for an answer with a failing status, with the provider's message.
    fn status_error(&self, status: StatusCode, body: &str) -> LlmError {
        let message = provider_message(body);
        if status.is_client_error() && failure::context_overflow(body) {
            return self.failed_answer(body);
        }
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => self.error(format!(
                "the API key was refused ({}): {message}. Check your key: set it in Settings, or in the environment",
                status.as_u16()
            )),
            StatusCode::TOO_MANY_REQUESTS => self.error(format!("rate limited (429): {message}")),
            _ => self.error(format!("{} {}: {message}", status.as_u16(), status.canonical_reason().unwrap_or(""))),
        }
    }

    /// The error for a stream that ended before the reply did, after `events` events
    /// and `chars` characters of text.
    pub fn ended_early(&self, events: usize, chars: usize) -> LlmError {
        if events == 0 {
            self.error("the server answered but sent no reply at all (an empty stream) — is the base URL right?")
        } else {
            self.error(format!("the connection closed before the reply was complete ({chars} characters received)"))
        }
    }

    /// A guard for one reply that may take at most `max_tokens` tokens (None: the
    /// provider's own limit, unknown here): see [`ReplyGuard::check`].
    pub fn reply_guard(&self, max_tokens: Option<u32>) -> ReplyGuard {
        ReplyGuard {
            started: std::time::Instant::now(),
            limit: self.limits.reply,
            max_tokens,
            max_chars: max_tokens.map_or(MAX_REPLY_CHARS, |tokens| (tokens as usize).saturating_mul(CHARS_PER_TOKEN_AT_MOST)),
        }
    }

    /// The next event of a stream, within the idle timeout; None at the stream's end.
    pub async fn next_event(&self, events: &mut Events, cancel: &CancellationToken) -> Result<Option<Event>, LlmError> {
        let next = tokio::select! {
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            next = tokio::time::timeout(self.limits.idle, events.next()) => next,
        };
        match next {
            Err(_) => Err(self.error(format!("the stream went silent for {} s", self.limits.idle.as_secs_f64()))),
            Ok(None) => Ok(None),
            Ok(Some(Ok(event))) => Ok(Some(event)),
            Ok(Some(Err(error))) => {
                Err(self.error(format!("the connection broke off in the middle of the reply ({})", failure::last_cause(&error))))
            }
        }
    }

    /// GETs `url` with a short timeout: is the server there, and does it take the key?
    pub async fn probe(&self, url: &str, headers: &HeaderMap) -> Result<(), String> {
        let send = self.client.get(url).headers(headers.clone()).send();
        match tokio::time::timeout(self.limits.connect, send).await {
            Err(_) => Err(format!("no answer within {} s", self.limits.connect.as_secs())),
            Ok(Err(error)) => Err(failure::describe(&error, url, MODEL_SERVER).text),
            Ok(Ok(response)) if response.status().is_success() => Ok(()),
            Ok(Ok(response)) => {
                let status = response.status();
                let text = read_text(response, self.limits.connect).await;
                Err(match self.status_error(status, &text) {
                    LlmError::Failed(text) => text,
                    other => other.to_string(),
                })
            }
        }
    }
}

/// The most characters a token is taken to hold, for telling a reply that went on
/// past its token limit (a server that ignores `max_tokens`).
const CHARS_PER_TOKEN_AT_MOST: usize = 32;
/// The most characters of a reply whose token limit is not known here.
const MAX_REPLY_CHARS: usize = 4 << 20;

/// Bounds one streamed reply: its time ([`Limits::reply`]) and its length (its
/// `max_tokens`), so a server that streams forever cannot hold a run.
#[derive(Debug)]
pub struct ReplyGuard {
    started: std::time::Instant,
    limit: Duration,
    max_tokens: Option<u32>,
    max_chars: usize,
}

impl ReplyGuard {
    /// An error once the reply has taken too long or, with `chars` characters so
    /// far, gone on past its token limit.
    pub fn check(&self, transport: &Transport, chars: usize) -> Result<(), LlmError> {
        if chars > self.max_chars {
            return Err(transport.error(match self.max_tokens {
                Some(tokens) => format!("the reply went on past its limit of {tokens} tokens (the server did not stop it)"),
                None => format!("the reply went on past {} characters (the server did not stop it)", self.max_chars),
            }));
        }
        if self.started.elapsed() > self.limit {
            return Err(transport.error(format!("the reply took longer than {} s, and was stopped", self.limit.as_secs_f64())));
        }
        Ok(())
    }
}

fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// `backoff × 2^attempt`, scaled by a random factor in [0.5, 1) so clients that
/// failed together do not come back together.
fn backoff(limits: &Limits, attempt: u32) -> Duration {
    let full = limits.backoff.saturating_mul(1 << attempt.min(16));
    full.mul_f64(0.5 + fastrand::f64() / 2.0).min(limits.max_wait)
}

/// `Retry-After` as seconds or an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

/// A failed answer's body, read with a time limit (a server may never finish it).
async fn read_text(response: reqwest::Response, limit: Duration) -> String {
    match tokio::time::timeout(limit, response.text()).await {
        Ok(Ok(text)) => text,
        _ => String::new(),
    }
}

/// The provider's own words from an error body: `{"error": {"message": …}}` (OpenAI,
/// llama.cpp), `{"type": "error", "error": {"message": …}}` (Anthropic),
/// `{"message": …}`, `{"error": "…"}`, or the body itself, shortened.
pub fn provider_message(body: &str) -> String {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(body) {
        let found = value
            .pointer("/error/message")
            .or_else(|| value.get("message"))
            .or_else(|| value.get("error"))
            .or_else(|| value.get("detail"))
            .and_then(|v| v.as_str());
        if let Some(text) = found {
            return text.to_owned();
        }
    }
    let body = body.trim();
    if body.is_empty() {
        return "(no message)".to_owned();
    }
    let mut short: String = body.chars().take(300).collect();
    if short.len() < body.len() {
        short.push('…');
    }
    short
}

/// `path` under the base URL `base`, as URLs join: the base's path gains it and
/// its query stays at the end (`https://h/v1?api-version=1` + `chat/completions`
/// is `https://h/v1/chat/completions?api-version=1`).
pub fn endpoint(base: &str, path: &str) -> String {
    match reqwest::Url::parse(base) {
        Ok(mut url) => {
            let joined = format!("{}/{}", url.path().trim_end_matches('/'), path.trim_start_matches('/'));
            url.set_path(&joined);
            url.to_string()
        }
        Err(_) => format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_a_base_url_as_urls_do() {
        assert_eq!(
            endpoint("https://h.example/openai/v1?api-version=2024-01-01", "chat/completions"),
            "https://h.example/openai/v1/chat/completions?api-version=2024-01-01"
        );
        assert_eq!(endpoint("http://127.0.0.1:8080/v1/", "/models"), "http://127.0.0.1:8080/v1/models");
        assert_eq!(endpoint("https://api.anthropic.com", "v1/messages"), "https://api.anthropic.com/v1/messages");
    }

    #[test]
    fn provider_messages_come_from_every_known_error_shape() {
        assert_eq!(provider_message(r#"{"error":{"message":"bad model","type":"x"}}"#), "bad model");
        assert_eq!(provider_message(r#"{"type":"error","error":{"type":"overloaded","message":"busy"}}"#), "busy");
        assert_eq!(provider_message(r#"{"error":"nope"}"#), "nope");
        assert_eq!(provider_message("<html>gateway</html>"), "<html>gateway</html>");
        assert_eq!(provider_message(""), "(no message)");
        assert_eq!(provider_message(&"x".repeat(400)).chars().count(), 301);
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(RETRY_AFTER, "0.25".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(5));
        headers.insert(RETRY_AFTER, later.parse().unwrap());
        let wait = retry_after(&headers).unwrap();
        assert!(wait <= Duration::from_secs(5) && wait >= Duration::from_secs(3), "{wait:?}");
        headers.insert(RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_stays_under_the_cap() {
        let limits = Limits { backoff: Duration::from_millis(100), max_wait: Duration::from_secs(1), ..Limits::default() };
        for _ in 0..100 {
            let first = backoff(&limits, 0);
            assert!(first >= Duration::from_millis(50) && first < Duration::from_millis(100), "{first:?}");
            let third = backoff(&limits, 2);
            assert!(third >= Duration::from_millis(200) && third < Duration::from_millis(400), "{third:?}");
            assert!(backoff(&limits, 10) <= Duration::from_secs(1));
        }
    }
}
