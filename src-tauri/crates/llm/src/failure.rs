//! What went wrong between Crewgraph and a model's server, in a person's words: a
//! failed request ([`describe`]: nothing listening, an unknown host, a connection cut,
//! a certificate refused) and a 2xx answer that is not a model's ([`not_a_reply`]: an
//! HTML page, an empty body, truncated JSON). The HTTP client's own chain of errors
//! is reduced to its last cause, in parentheses, so the details are still there.

use std::error::Error as StdError;
use std::io::ErrorKind;

/// A failed request, said plainly, and whether trying again may help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub text: String,
    /// A refused or cut connection, a timeout: the next try may pass.
    pub transient: bool,
}

/// The words [`describe`] starts with when nothing listens at the address.
const NOTHING_ANSWERS: &str = "nothing answers at";
/// The words [`describe`] uses when the connection was cut before an answer.
const CUT_BEFORE_ANSWER: &str = "was cut before the server answered";

/// True when `error` (a provider's error text) says the server was not there, or
/// went away before answering: a server of our own that died can be started again.
pub fn server_gone(error: &str) -> bool {
    error.contains(NOTHING_ANSWERS) || error.contains(CUT_BEFORE_ANSWER)
}

/// What happened to a request to `url` that got no answer; `server` names what
/// should be listening there in the question a person is asked ("the model server").
pub fn describe(error: &reqwest::Error, url: &str, server: &str) -> Failure {
    let place = place(url);
    let detail = last_cause(error);
    let chain = chain_text(error).to_ascii_lowercase();
    let io_kind = io_kind(error);
    let (text, transient) = match io_kind {
        Some(ErrorKind::ConnectionRefused) => (format!("{NOTHING_ANSWERS} {place} — is {server} running?"), true),
        Some(ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe | ErrorKind::UnexpectedEof) => {
            (format!("the connection to {place} {CUT_BEFORE_ANSWER}"), true)
        }
        Some(ErrorKind::TimedOut) => (format!("connecting to {place} timed out"), true),
        _ if chain.contains("dns error") || chain.contains("lookup address") || chain.contains("name or service not known") => {
            (format!("cannot find the server {place} — is the address right?"), false)
        }
        _ if chain.contains("certificate") || chain.contains("tls") || chain.contains("handshake") => {
            (format!("the secure connection to {place} failed — its certificate was not accepted"), false)
        }
        _ if chain.contains("connection closed") || chain.contains("incomplete message") || chain.contains("reset") => {
            (format!("the connection to {place} {CUT_BEFORE_ANSWER}"), true)
        }
        _ if error.is_connect() => (format!("cannot connect to {place}"), true),
        _ if error.is_timeout() => (format!("{place} did not answer in time"), true),
        _ if error.is_builder() => (format!("the address {place} cannot be used"), false),
        _ => (format!("the request to {place} failed"), error.is_request()),
    };
    Failure { text: format!("{text} ({detail})"), transient }
}

/// What a 2xx answer with `content_type` and `body` is, when it is not the stream of a
/// model's reply.
pub fn not_a_reply(content_type: &str, body: &str) -> String {
    let trimmed = body.trim_start();
    let content_type = content_type.to_ascii_lowercase();
    if trimmed.is_empty() {
        return "the server answered with an empty body, not a chat completion — is the base URL right?".to_owned();
    }
    if content_type.contains("html") || trimmed.starts_with('<') {
        let title = html_title(trimmed).map(|t| format!(" (\"{t}\")")).unwrap_or_default();
        return format!("the server answered with an HTML page{title}, not a chat completion — is the base URL right?");
    }
    match serde_json::from_str::<serde_json::Value>(trimmed) {
        Ok(value) if value.get("error").is_some() || value.get("message").is_some() => {
            format!("the server answered with an error: {}", crate::http::provider_message(trimmed))
        }
        Ok(_) => format!(
            "the server answered with JSON that is not a streamed chat completion: {} — is the base URL right?",
            crate::openai::short(trimmed)
        ),
        Err(_) if trimmed.starts_with(['{', '[']) => {
            format!("the server's answer is cut off or broken JSON: {}", crate::openai::short(trimmed))
        }
        Err(_) => {
            format!("the server answered with text, not a chat completion: {} — is the base URL right?", crate::openai::short(trimmed))
        }
    }
}

/// True when a model's server says (in an error `text`) that it takes no tools for
/// this model: Ollama's "does not support tools", llama.cpp's "tools param requires
/// --jinja flag", vLLM's "auto tool choice requires --enable-auto-tool-choice", and
/// the like. Such a model is offered its tools through structured output instead
/// ([`crate::tool_json`]).
pub fn tools_refused(text: &str) -> bool {
    let lower = text.to_lowercase();
    (lower.contains("tool") || lower.contains("function"))
        && ["not support", "unsupported", "requires --jinja", "requires --enable-auto-tool-choice", "not enabled", "no tool support"]
            .iter()
            .any(|said| lower.contains(said))
}

/// True when a server says it takes no structured output (`response_format` with a
/// JSON schema) or cannot follow the schema it was given.
pub fn schema_refused(text: &str) -> bool {
    let lower = text.to_lowercase();
    (lower.contains("response_format") || lower.contains("json_schema") || lower.contains("schema"))
        && ["not support", "unsupported", "invalid", "unknown", "failed", "not allowed", "unrecognized"]
            .iter()
            .any(|said| lower.contains(said))
}

/// True when an error answer says the request was longer than the model's context
/// window: OpenAI's `context_length_exceeded` ("This model's maximum context length
/// is … tokens"), vLLM's the same words, llama.cpp's "exceeds the available context
/// size" (`exceed_context_size_error`), Anthropic's "prompt is too long", LM Studio's
/// "context length", Ollama's and others' "context window".
pub fn context_overflow(body: &str) -> bool {
    let lower = body.to_lowercase();
    [
        "context_length_exceeded",
        "exceed_context_size_error",
        "exceeds the available context size",
        "maximum context length",
        "prompt is too long",
        "context length exceeded",
        "exceeds the context window",
        "exceeds the model's context",
        "longer than the model's context length",
        "input is too long",
    ]
    .iter()
    .any(|words| lower.contains(words))
}

/// The window an overflow answer says the model has: llama.cpp's `n_ctx`, or the
/// number in "available context size (4096 tokens)", "maximum context length is
/// 128000 tokens", "> 200000 maximum".
pub fn context_limit(body: &str) -> Option<u32> {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(body) {
        if let Some(n_ctx) = value.pointer("/error/n_ctx").and_then(serde_json::Value::as_u64) {
            return crate::window::sane(n_ctx);
        }
    }
    let lower = body.to_lowercase();
    let number_after = |words: &str| -> Option<u64> {
        let rest = &lower[lower.find(words)? + words.len()..];
        let digits: String = rest.trim_start_matches([' ', '(', ':']).chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    ["available context size", "maximum context length is", "tokens > "]
        .iter()
        .find_map(|words| number_after(words))
        .and_then(crate::window::sane)
}

/// `host:port` of `url`, for messages (never its credentials or query).
fn place(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(parsed) => match (parsed.host_str(), parsed.port_or_known_default()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            _ => crate::settings::masked_url(url),
        },
        Err(_) => crate::settings::masked_url(url),
    }
}

/// The deepest cause's words: the one a person can look up ("Connection refused (os
/// error 111)"), not the client's wrapping.
pub fn last_cause(error: &(dyn StdError + 'static)) -> String {
    let mut last: &(dyn StdError + 'static) = error;
    while let Some(source) = last.source() {
        last = source;
    }
    let text = last.to_string();
    if text.is_empty() {
        error.to_string()
    } else {
        text
    }
}

fn chain_text(error: &(dyn StdError + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The kind of the first I/O error in the chain, outermost first.
fn io_kind(error: &(dyn StdError + 'static)) -> Option<ErrorKind> {
    let mut link: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(current) = link {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        link = current.source();
    }
    None
}

fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title>")? + "<title>".len();
    let end = start + lower[start..].find("</title>")?;
    let title: String = html.get(start..end)?.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then(|| title.chars().take(80).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_that_are_not_a_reply_say_what_came_back() {
        assert!(not_a_reply("text/html", "<html><head><title>Welcome to nginx!</title></head></html>")
            .starts_with("the server answered with an HTML page (\"Welcome to nginx!\"), not a chat completion"));
        assert!(not_a_reply("", "<!doctype html><p>hi").contains("HTML page, not a chat completion — is the base URL right?"));
        assert!(not_a_reply("application/json", "").contains("empty body"));
        assert!(not_a_reply("application/json", r#"{"choices": [{"mess"#).starts_with("the server's answer is cut off or broken JSON"));
        assert!(not_a_reply("application/json", r#"{"error": {"message": "no such model"}}"#).ends_with("no such model"));
        assert!(not_a_reply("application/json", r#"{"object": "list"}"#).contains("not a streamed chat completion"));
        assert!(not_a_reply("text/plain", "Hello").contains("answered with text"));
    }

    #[test]
    fn answers_that_say_the_request_was_too_long_are_known_by_their_words() {
        for body in [
            r#"{"error":{"code":400,"message":"request (4319 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}"#,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208015 tokens > 200000 maximum"}}"#,
        ] {
            assert!(context_overflow(body), "{body}");
        }
        assert!(!context_overflow(r#"{"error":{"message":"Invalid API key"}}"#));
        assert_eq!(
            context_limit(
                r#"{"error":{"message":"request (4319 tokens) exceeds the available context size (4096 tokens), try increasing it","n_ctx":4096}}"#
            ),
            Some(4096)
        );
        assert_eq!(context_limit("This model's maximum context length is 128000 tokens. However…"), Some(128_000));
        assert_eq!(context_limit("prompt is too long: 208015 tokens > 200000 maximum"), Some(200_000));
        assert_eq!(context_limit("request exceeds the available context size (0 tokens)"), None, "an unbelievable window says nothing");
        assert!(!context_overflow("model 'x' not found"));
    }

    #[test]
    fn places_never_show_credentials() {
        assert_eq!(place("https://user:secret@example.org/v1?key=k"), "example.org:443");
        assert_eq!(place("http://127.0.0.1:9/v1"), "127.0.0.1:9");
    }

    #[test]
    fn servers_refusing_tools_or_a_schema_are_told_apart_from_other_failures() {
        assert!(tools_refused(r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#));
        assert!(tools_refused("registry.ollama.ai/library/gemma2:2b does not support tools"));
        assert!(tools_refused(r#""auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"#));
        assert!(!tools_refused("the prompt is too long for the context window"));
        assert!(!tools_refused("tool call 0 came without a name"));
        assert!(schema_refused("response_format type json_schema is not supported by this model"));
        assert!(schema_refused("JSON schema conversion failed: unknown keyword"));
        assert!(!schema_refused("rate limited (429): slow down"));
    }
}
