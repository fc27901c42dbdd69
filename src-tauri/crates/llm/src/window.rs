//! A model's context window — the tokens one request may hold, prompt and reply
//! together — from the first of: what the person set (`context_window` in Settings,
//! `crewgraph models add --context-window N`); what the model's server reports
//! ([`ask_server`]: llama.cpp's `/props`, vLLM's `max_model_len`, Ollama's
//! `/api/show`, LM Studio's `/api/v0/models`); what is known of well-known hosted
//! models by name ([`known`]).
//!
//! A server's answer is untrusted: a window of 0 is no answer, and one above
//! [`MAX_WINDOW`] is held to it ([`sane`]).

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::{json, Value};

use crate::http::endpoint;

/// The largest window believed (ten million tokens); a server that says more is
/// held to it.
pub const MAX_WINDOW: u64 = 10_000_000;
/// The smallest window believed; a server that says less is not believed at all.
pub const MIN_WINDOW: u64 = 256;
/// How long each question to a server may take.
const ASK_TIMEOUT: Duration = Duration::from_secs(3);
/// The context Ollama serves its OpenAI endpoint with when the model's parameters
/// set no `num_ctx` (its default; longer prompts are cut silently).
const OLLAMA_DEFAULT_CTX: u64 = 4096;

/// Where a window came from, as `crewgraph models check` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The person set it.
    Set,
    /// The model's server reported it.
    Server(ServerKind),
    /// Crewgraph knows it by the model's name.
    Known,
}

/// The kind of OpenAI-compatible server, as far as its own endpoints tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerKind {
    LlamaCpp,
    /// vLLM, OpenRouter and others: the window on the model's entry of `/v1/models`.
    ModelList,
    Ollama,
    LmStudio,
}

impl ServerKind {
    pub fn name(self) -> &'static str {
        match self {
            ServerKind::LlamaCpp => "llama.cpp",
            ServerKind::ModelList => "the server's model list",
            ServerKind::Ollama => "Ollama",
            ServerKind::LmStudio => "LM Studio",
        }
    }
}

impl Source {
    /// In words: "set in Settings", "reported by llama.cpp", "known for this model".
    pub fn words(self) -> String {
        match self {
            Source::Set => "set in Settings".to_owned(),
            Source::Server(kind) => format!("reported by {}", kind.name()),
            Source::Known => "known for this model".to_owned(),
        }
    }
}

/// What a server told of a model: its window (when it said one believable) and its
/// kind (llama.cpp servers also count tokens, at `/tokenize`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerFacts {
    pub window: Option<u32>,
    pub kind: Option<ServerKind>,
    /// The window the server said, when it was not believable (0, or beyond [`MAX_WINDOW`]).
    pub unbelievable: Option<u64>,
}

/// `tokens` as a window: None below [`MIN_WINDOW`], held to [`MAX_WINDOW`].
pub fn sane(tokens: u64) -> Option<u32> {
    (tokens >= MIN_WINDOW).then(|| u32::try_from(tokens.min(MAX_WINDOW)).unwrap_or(u32::MAX))
}

/// The server's root: `http://127.0.0.1:8080` for `http://127.0.0.1:8080/v1`.
pub fn server_root(base_url: &str) -> String {
    let trimmed = base_url.trim_end_matches('/');
    trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_owned()
}

/// Asks the OpenAI-compatible server at `base_url` what it serves `model` with:
/// llama.cpp, vLLM, Ollama and LM Studio each say it their own way; each question
/// has a short time limit, and a server that answers none of them tells nothing.
pub async fn ask_server(client: &reqwest::Client, base_url: &str, headers: &HeaderMap, model: &str) -> ServerFacts {
    let root = server_root(base_url);
    let get = |url: String| {
        let request = client.get(url).headers(headers.clone()).timeout(ASK_TIMEOUT).send();
        async move { request.await.ok()?.error_for_status().ok()?.json::<Value>().await.ok() }
    };
    let mut facts = ServerFacts::default();
    let mut found = |tokens: Option<u64>, kind: ServerKind| -> bool {
        let Some(tokens) = tokens else { return false };
        facts.kind = Some(kind);
        facts.window = sane(tokens);
        if facts.window.is_none() || tokens > MAX_WINDOW {
            facts.unbelievable = Some(tokens);
        }
        true
    };
    // llama.cpp: a slot's context (and what the model was trained for).
    if let Some(props) = get(format!("{root}/props")).await {
        if let Some(slot) = props.pointer("/default_generation_settings/n_ctx").and_then(Value::as_u64) {
            let models = get(endpoint(base_url, "models")).await;
            let trained = models.as_ref().and_then(|m| m.pointer("/data/0/meta/n_ctx_train")).and_then(Value::as_u64);
            let tokens = trained.filter(|t| *t > 0).map_or(slot, |t| t.min(slot));
            found(Some(tokens), ServerKind::LlamaCpp);
            return facts;
        }
    }
    // vLLM: max_model_len on the model's entry of /v1/models (OpenRouter: context_length).
    if let Some(models) = get(endpoint(base_url, "models")).await {
        let entry = models
            .get("data")
            .and_then(Value::as_array)
            .and_then(|data| data.iter().find(|m| m.get("id").and_then(Value::as_str) == Some(model)).or(data.first()));
        let tokens = entry.and_then(|m| m.get("max_model_len").or(m.get("context_length"))).and_then(Value::as_u64);
        if found(tokens, ServerKind::ModelList) {
            return facts;
        }
    }
    // Ollama: the model's trained context, served at num_ctx (or Ollama's default).
    let show = client.post(format!("{root}/api/show")).headers(headers.clone()).json(&json!({"model": model})).timeout(ASK_TIMEOUT).send();
    if let Some(show) = async { show.await.ok()?.error_for_status().ok()?.json::<Value>().await.ok() }.await {
        let trained = show
            .get("model_info")
            .and_then(Value::as_object)
            .and_then(|info| info.iter().find(|(key, _)| key.ends_with(".context_length")).and_then(|(_, v)| v.as_u64()));
        let num_ctx = show
            .get("parameters")
            .and_then(Value::as_str)
            .and_then(|parameters| parameters.lines().find_map(|line| line.trim().strip_prefix("num_ctx")?.trim().parse::<u64>().ok()));
        let served = num_ctx.unwrap_or(OLLAMA_DEFAULT_CTX);
        if found(trained.map(|t| t.min(served)).or(num_ctx), ServerKind::Ollama) {
            return facts;
        }
    }
    // LM Studio: the loaded context of the model.
    if let Some(entry) = get(format!("{root}/api/v0/models/{model}")).await {
        let tokens = entry.get("loaded_context_length").or(entry.get("max_context_length")).and_then(Value::as_u64);
        found(tokens, ServerKind::LmStudio);
    }
    facts
}

/// The window of a well-known hosted model, by its name (`gpt-4o-mini`,
/// `openai/gpt-4.1`, `claude-sonnet-4-5`): the longest known prefix wins.
pub fn known(model: &str) -> Option<u32> {
    const KNOWN: &[(&str, u32)] = &[
        ("gpt-5", 400_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-4", 8_192),
        ("gpt-3.5-turbo", 16_385),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4-mini", 200_000),
        ("claude", 200_000),
        ("gemini-1.5-pro", 2_097_152),
        ("gemini", 1_048_576),
        ("mistral-large", 131_072),
        ("mistral-small", 32_768),
        ("deepseek-chat", 65_536),
        ("deepseek-reasoner", 65_536),
        ("llama-3.1", 131_072),
        ("llama-3.3", 131_072),
        ("llama3.1", 131_072),
        ("llama3.2", 131_072),
        ("qwen2.5", 32_768),
    ];
    let name = model.rsplit('/').next().unwrap_or(model).trim().to_lowercase();
    KNOWN.iter().filter(|(prefix, _)| name.starts_with(prefix)).max_by_key(|(prefix, _)| prefix.len()).map(|(_, tokens)| *tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_models_are_known_by_the_longest_prefix() {
        assert_eq!(known("gpt-4o-mini"), Some(128_000));
        assert_eq!(known("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(known("gpt-4"), Some(8_192));
        assert_eq!(known("openai/gpt-4o"), Some(128_000), "a router's provider prefix is left out");
        assert_eq!(known("Claude-Sonnet-4-5"), Some(200_000));
        assert_eq!(known("my-finetune"), None);
    }

    #[test]
    fn unbelievable_windows_are_refused_or_held() {
        assert_eq!(sane(0), None);
        assert_eq!(sane(12), None);
        assert_eq!(sane(8192), Some(8192));
        assert_eq!(sane(1_000_000_000_000), Some(MAX_WINDOW as u32));
    }

    #[test]
    fn a_servers_root_is_its_base_without_v1() {
        assert_eq!(server_root("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080");
        assert_eq!(server_root("http://127.0.0.1:11434"), "http://127.0.0.1:11434");
    }
}
