//! The provider a run talks to: [`Models`] answers each call with the model the
//! agent names, through [`ModelSettings`] — a configured model, `provider/model`,
//! or the local model — making each provider's client once and keeping it (and its
//! connection pool). A run-wide choice (`crewgraph run --model NAME`) overrides
//! every agent's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use crewgraph_engine::run::{ContextWindow, LlmClient, LlmError, LlmReply, LlmRequest, TokenSink};
use crewgraph_engine::ModelSpec;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::anthropic::AnthropicClient;
use crate::keys;
use crate::local::{LocalModel, MODEL_NAME};
use crate::openai::OpenAiClient;
use crate::settings::{ModelConfig, ModelSettings, Price, Provider, Resolved};
use crate::window::{self, ServerFacts, ServerKind, Source};

/// Every configured model behind one [`LlmClient`].
pub struct Models {
    settings: ModelSettings,
    /// The run's model, overriding the agents' own.
    chosen: Option<ModelSpec>,
    local: Arc<LocalModel>,
    /// Clients made so far, by the model's configuration.
    clients: Mutex<HashMap<String, Arc<dyn LlmClient>>>,
    /// What each model's server told of it, asked once, by the model's configuration.
    facts: Mutex<HashMap<String, Arc<OnceCell<ServerFacts>>>>,
    /// For asking servers about themselves.
    http: reqwest::Client,
}

impl Models {
    /// The models of `settings`, with `local` as the local model.
    pub fn new(settings: ModelSettings, local: Arc<LocalModel>) -> Self {
        Models {
            settings,
            chosen: None,
            local,
            clients: Mutex::new(HashMap::new()),
            facts: Mutex::new(HashMap::new()),
            http: reqwest::Client::new(),
        }
    }

    /// Uses the model named `name` for every call, whatever the agents name.
    /// Fails at once when the name does not resolve.
    pub fn choose(mut self, name: &str) -> Result<Self, String> {
        let spec = ModelSpec::named(name);
        self.settings.resolve(Some(&spec))?;
        self.chosen = Some(spec);
        Ok(self)
    }

    /// A sentence for the person when the run will use the local model because no
    /// model is configured (None otherwise).
    pub fn local_notice(&self) -> Option<String> {
        let local_chosen = self.settings.default.as_deref() == Some("local");
        if !self.settings.is_empty() || local_chosen || self.chosen.as_ref().is_some_and(|c| c.model.as_deref() == Some("local")) {
            return None;
        }
        Some(match self.local.available() {
            Ok(_) => format!(
                "no model is configured, so every agent runs on the local model {MODEL_NAME}: small and quick, not wise. \
                 Add a model in Settings or with 'crewgraph models add'."
            ),
            Err(why) => format!("no model is configured, and {why}"),
        })
    }

    /// The client for `spec`.
    pub fn client(&self, spec: Option<&ModelSpec>) -> Result<Arc<dyn LlmClient>, LlmError> {
        self.client_and_price(spec).map(|(client, _)| client)
    }

    /// What the server of `config` (an OpenAI-compatible one at an address of its
    /// own: a hosted provider's models are known by name) tells of it, asked once.
    async fn facts(&self, config: &ModelConfig) -> ServerFacts {
        if config.provider != Provider::Openai || config.base_url.is_none() {
            return ServerFacts::default();
        }
        let cell = {
            let mut facts = self.facts.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            facts.entry(serde_json::to_string(config).unwrap_or_default()).or_default().clone()
        };
        let headers = bearer(config);
        cell.get_or_init(|| window::ask_server(&self.http, config.base_url(), &headers, &config.model)).await.clone()
    }

    /// The context window of the model `spec` names, and where it came from: the
    /// person set it, its server reported it, or it is known by the model's name.
    pub async fn window_of(&self, spec: Option<&ModelSpec>) -> Option<(u32, Source)> {
        let spec = self.chosen.as_ref().or(spec);
        match self.settings.resolve(spec).ok()? {
            Resolved::Local => {
                let window = self.local.context_window(None).await?;
                Some((window.tokens, Source::Server(ServerKind::LlamaCpp)))
            }
            Resolved::Remote(_, config) => {
                if let Some(set) = config.context_window {
                    return Some((set, Source::Set));
                }
                let facts = self.facts(&config).await;
                match (facts.window, facts.kind) {
                    (Some(tokens), Some(kind)) => Some((tokens, Source::Server(kind))),
                    _ => window::known(&config.model).map(|tokens| (tokens, Source::Known)),
                }
            }
        }
    }

    /// The window the server of the model `spec` names said, when it said one that
    /// cannot be right (0, or more than ten million tokens).
    pub async fn unbelievable_window(&self, spec: Option<&ModelSpec>) -> Option<u64> {
        match self.settings.resolve(self.chosen.as_ref().or(spec)).ok()? {
            Resolved::Remote(_, config) if config.context_window.is_none() => self.facts(&config).await.unbelievable,
            _ => None,
        }
    }

    /// The client for `spec`, and its model's price when one is set.
    fn client_and_price(&self, spec: Option<&ModelSpec>) -> Result<(Arc<dyn LlmClient>, Option<Price>), LlmError> {
        let spec = self.chosen.as_ref().or(spec);
        match self.settings.resolve(spec).map_err(LlmError::Failed)? {
            Resolved::Local => Ok((self.local.clone(), None)),
            Resolved::Remote(name, config) => {
                let id = serde_json::to_string(&config).unwrap_or_default();
                let mut clients = self.clients.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if let Some(client) = clients.get(&id) {
                    return Ok((client.clone(), config.price));
                }
                // The check found it calling no tool of its own (or its server refusing tools).
                let json_tools =
                    self.settings.checks.get(&name).is_some_and(|c| c.answers && (c.tools == Some(false) || c.tool_json == Some(true)));
                let client = client_of(&config, &self.local, json_tools)?;
                clients.insert(id, client.clone());
                Ok((client, config.price))
            }
        }
    }
}

/// A client of a configured model, with its key from the keyring or the environment;
/// `json_tools`: offer it tools through structured output from the start.
fn client_of(config: &ModelConfig, local: &Arc<LocalModel>, json_tools: bool) -> Result<Arc<dyn LlmClient>, LlmError> {
    config.check().map_err(LlmError::Failed)?;
    let key = keys::find(config.key_name()).map(|(key, _)| key);
    let limits = config.limits.clone();
    Ok(match config.provider {
        Provider::Openai => Arc::new(
            OpenAiClient::new(config.base_url(), &config.model, key.as_ref(), limits)?
                .with_max_tokens(config.max_tokens)
                .with_tools_through_structured_output(json_tools),
        ),
        Provider::Anthropic => {
            Arc::new(AnthropicClient::new(config.base_url(), &config.model, key.as_ref(), limits)?.with_max_tokens(config.max_tokens))
        }
        Provider::Local => local.clone(),
    })
}

/// The `Authorization` header of `config`'s key, when it has one.
fn bearer(config: &ModelConfig) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Some((key, _)) = keys::find(config.key_name()) {
        if let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {}", key.expose())) {
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
    }
    headers
}

/// Whether a model answers: its server is there and takes the key.
pub async fn probe(config: &ModelConfig) -> Result<(), String> {
    config.check()?;
    let key = keys::find(config.key_name()).map(|(key, _)| key);
    let limits = crate::http::Limits { connect: std::time::Duration::from_secs(5), ..config.limits.clone() };
    match config.provider {
        Provider::Openai => {
            OpenAiClient::new(config.base_url(), &config.model, key.as_ref(), limits).map_err(|e| e.to_string())?.probe().await
        }
        Provider::Anthropic => {
            AnthropicClient::new(config.base_url(), &config.model, key.as_ref(), limits).map_err(|e| e.to_string())?.probe().await
        }
        Provider::Local => LocalModel::new().available().map(|_| ()).map_err(str::to_owned),
    }
}

#[async_trait]
impl LlmClient for Models {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        let (client, price) = self.client_and_price(request.model)?;
        let mut reply = client.complete(request, on_token, cancel).await?;
        if let (Some(price), Some(usage)) = (price, reply.usage.as_mut()) {
            usage.cost_usd = Some(price.cost(usage));
        }
        Ok(reply)
    }

    fn tools_through_structured_output(&self, model: Option<&ModelSpec>) -> bool {
        self.client_and_price(model).is_ok_and(|(client, _)| client.tools_through_structured_output(None))
    }

    /// The window the person set, else the one its server reports, else the one
    /// known for the model's name.
    async fn context_window(&self, model: Option<&ModelSpec>) -> Option<ContextWindow> {
        let spec = self.chosen.as_ref().or(model);
        let (tokens, _) = self.window_of(spec).await?;
        let reply = match self.settings.resolve(spec).ok()? {
            Resolved::Local => return self.local.context_window(None).await,
            Resolved::Remote(_, config) => {
                config.max_tokens.or((config.provider == Provider::Anthropic).then_some(crate::anthropic::DEFAULT_MAX_TOKENS))
            }
        };
        Some(ContextWindow { tokens, reply })
    }

    /// Counted by the local model, or by a llama.cpp server's `/tokenize`.
    async fn count_tokens(&self, model: Option<&ModelSpec>, texts: &[&str]) -> Option<Vec<u32>> {
        let spec = self.chosen.as_ref().or(model);
        match self.settings.resolve(spec).ok()? {
            Resolved::Local => self.local.count_tokens(None, texts).await,
            Resolved::Remote(_, config) => {
                if self.facts(&config).await.kind != Some(ServerKind::LlamaCpp) {
                    return None;
                }
                crate::local::tokenize(&self.http, &window::server_root(config.base_url()), texts).await
            }
        }
    }
}
