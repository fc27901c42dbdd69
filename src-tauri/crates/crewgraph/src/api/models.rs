//! Models through the API: the named models (kept in the store's settings), which
//! one is the default, whether each answers, and the model a run talks to — a
//! script in Simulate mode, else [`Models`] over the configured ones, which falls
//! back to the local model when none is configured (and the run says so).

use std::sync::Arc;

use async_trait::async_trait;
use crewgraph_engine::run::{LlmClient, StoreError};
use crewgraph_engine::Crew;
use crewgraph_llm::check::{self, ModelCheck};
use crewgraph_llm::discover::{self, FoundServer};
use crewgraph_llm::keys;
use crewgraph_llm::local::MODEL_NAME;
use crewgraph_llm::settings::{masked_url, ModelConfig, ModelSettings, Price, Provider};
use crewgraph_llm::{models, Models, Pace, Paced, ScriptedLlm};
use crewgraph_store::SqliteStore;
use crewgraph_store_postgres::PostgresStore;
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode, RunOptions};

/// Where settings are kept (the SQLite store, the PostgreSQL store; a map in tests).
#[async_trait]
pub trait SettingsStore: Send + Sync {
    async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError>;
    async fn set_setting(&self, key: &str, value: &serde_json::Value) -> Result<(), StoreError>;
}

#[async_trait]
impl SettingsStore for SqliteStore {
    async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        SqliteStore::setting(self, key).await
    }

    async fn set_setting(&self, key: &str, value: &serde_json::Value) -> Result<(), StoreError> {
        SqliteStore::set_setting(self, key, value).await
    }
}

#[async_trait]
impl SettingsStore for PostgresStore {
    async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        PostgresStore::setting(self, key).await
    }

    async fn set_setting(&self, key: &str, value: &serde_json::Value) -> Result<(), StoreError> {
        PostgresStore::set_setting(self, key, value).await
    }
}

/// A model as the settings and `crewgraph models` show it.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ModelView {
    pub name: String,
    /// `openai`, `anthropic` or `local`.
    pub provider: String,
    /// The provider's name for it.
    pub model: String,
    pub base_url: String,
    pub default: bool,
    /// Where its API key comes from: `keyring`, `environment`, or None (none found;
    /// a local server needs none).
    pub key: Option<String>,
    /// The name its key is kept under (the keyring entry; `CREWGRAPH_<NAME>_API_KEY`);
    /// None for the local model.
    pub key_name: Option<String>,
    /// None until checked; then whether it answered, and if not, why.
    pub reachable: Option<bool>,
    pub problem: Option<String>,
    /// Its price in US dollars per million tokens read, when set (for runs' cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub input_price: Option<f64>,
    /// … and per million tokens written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub output_price: Option<f64>,
    /// The most tokens a reply may take, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_tokens: Option<u32>,
    /// Its context window as the person set it (a check says what its server reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_window: Option<u32>,
    /// What its last check found (**Check** in Settings, `crewgraph models check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub check: Option<ModelCheck>,
    /// Chosen by the person: a configured model, or `local` made the default — not
    /// the local model standing in because nothing is set up.
    pub chosen: bool,
}

/// A model to add (or replace).
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ModelRequest {
    /// `openai` (any OpenAI-compatible server), `anthropic` or `local`.
    #[schema(example = "openai")]
    pub provider: String,
    /// The provider's name for the model (`gpt-4o-mini`); unused by `local`.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// Where the server is (default: the provider's own address).
    #[serde(default)]
    #[ts(optional)]
    pub base_url: Option<String>,
    /// The name its API key is kept under in the keyring or environment (default:
    /// the provider's name) — the name, never the key.
    #[serde(default)]
    #[ts(optional)]
    pub key_name: Option<String>,
    /// The most tokens a reply may take.
    #[serde(default)]
    #[ts(optional)]
    pub max_tokens: Option<u32>,
    /// The tokens one request may hold, prompt and reply together (default: what
    /// its server reports, or what is known of the model).
    #[serde(default)]
    #[ts(optional)]
    pub context_window: Option<u32>,
    /// Its price in US dollars per million tokens read (with `output_price`), so
    /// runs say what they cost.
    #[serde(default)]
    #[ts(optional)]
    #[schema(example = 0.15)]
    pub input_price: Option<f64>,
    /// Its price in US dollars per million tokens written.
    #[serde(default)]
    #[ts(optional)]
    #[schema(example = 0.6)]
    pub output_price: Option<f64>,
    /// Make it the default model.
    #[serde(default)]
    #[ts(optional)]
    pub default: Option<bool>,
}

/// A model name: letters, digits, `-`, `_` and `.`; `local` is the built-in one.
fn check_name(name: &str) -> Result<(), ApiError> {
    let invalid = |why: &str| Err(ApiError::new(ApiErrorCode::InvalidInput, format!("the model name '{name}' {why}")));
    if name.trim().is_empty() {
        return invalid("is empty");
    }
    if name == "local" {
        return invalid("is taken: 'local' is the built-in local model");
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        return invalid("may hold only letters, digits, '-', '_' and '.'");
    }
    Ok(())
}

/// A keyring failure as Settings show it: a bad name is the person's to fix; no
/// keyring says where the key can go instead (once: the error itself says it).
fn key_error(error: keys::KeyError, done: &str) -> ApiError {
    match error {
        keys::KeyError::BadName(_) => ApiError::new(ApiErrorCode::InvalidInput, error.to_string()),
        keys::KeyError::NothingToRemoveFrom(_) => ApiError::new(ApiErrorCode::Io, error.to_string()),
        keys::KeyError::NoKeyring(..) | keys::KeyError::Locked(..) => {
            ApiError::new(ApiErrorCode::Io, format!("the key could not be {done}: {error}"))
        }
    }
}

impl Api {
    pub(crate) fn settings_store(&self) -> Result<&Arc<dyn SettingsStore>, ApiError> {
        self.settings.as_ref().ok_or_else(|| ApiError::new(ApiErrorCode::Store, "no settings store is open"))
    }

    /// The configured models (none when no settings store is open).
    pub async fn model_settings(&self) -> Result<ModelSettings, ApiError> {
        let Some(store) = &self.settings else { return Ok(ModelSettings::default()) };
        match store.setting(ModelSettings::KEY).await? {
            None => Ok(ModelSettings::default()),
            Some(value) => serde_json::from_value(value)
                .map_err(|e| ApiError::new(ApiErrorCode::Store, format!("the stored model settings cannot be read: {e}"))),
        }
    }

    async fn save_model_settings(&self, settings: &ModelSettings) -> Result<(), ApiError> {
        let value = serde_json::to_value(settings).map_err(|e| ApiError::new(ApiErrorCode::Store, e.to_string()))?;
        Ok(self.settings_store()?.set_setting(ModelSettings::KEY, &value).await?)
    }

    /// Adds (or replaces) the model `name`; the first one added, or one added with
    /// `make_default`, becomes the default.
    pub async fn add_model(&self, name: &str, config: ModelConfig, make_default: bool) -> Result<(), ApiError> {
        check_name(name)?;
        config.check().map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e))?;
        let mut settings = self.model_settings().await?;
        settings.models.insert(name.to_owned(), config);
        // What a check found was about the model as it was.
        settings.checks.remove(name);
        if make_default || settings.default.is_none() {
            settings.default = Some(name.to_owned());
        }
        self.save_model_settings(&settings).await
    }

    /// Removes the model `name` (the default moves to none when it was the default).
    pub async fn remove_model(&self, name: &str) -> Result<(), ApiError> {
        let mut settings = self.model_settings().await?;
        if settings.models.remove(name).is_none() {
            return Err(ApiError::new(ApiErrorCode::NotFound, format!("no model named '{name}' is configured")));
        }
        settings.checks.remove(name);
        if settings.default.as_deref() == Some(name) {
            settings.default = None;
        }
        self.save_model_settings(&settings).await
    }

    /// Makes `name` (a configured model, or `local`) the default.
    pub async fn set_default_model(&self, name: &str) -> Result<(), ApiError> {
        let mut settings = self.model_settings().await?;
        if name != "local" && !settings.models.contains_key(name) {
            return Err(ApiError::new(
                ApiErrorCode::NotFound,
                format!(
                    "no model named '{name}' is configured (configured: local{})",
                    settings.models.keys().map(|k| format!(", {k}")).collect::<String>()
                ),
            ));
        }
        settings.default = Some(name.to_owned());
        self.save_model_settings(&settings).await
    }

    /// Adds (or replaces) the model `name` as a window or a client describes it.
    pub async fn put_model(&self, name: &str, request: ModelRequest) -> Result<(), ApiError> {
        let provider = Provider::parse(&request.provider).ok_or_else(|| {
            ApiError::new(ApiErrorCode::InvalidInput, format!("unknown provider '{}' (known: openai, anthropic, local)", request.provider))
        })?;
        let mut config = ModelConfig::new(provider, request.model.unwrap_or_default());
        config.base_url = request.base_url.filter(|url| !url.trim().is_empty());
        config.key = request.key_name.filter(|key| !key.trim().is_empty());
        config.max_tokens = request.max_tokens;
        config.context_window = request.context_window;
        config.price =
            Price::from_parts(request.input_price, request.output_price).map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e))?;
        self.add_model(name, config, request.default.unwrap_or(false)).await
    }

    /// Keeps an API key in the OS keyring under `name` (a model's `key_name`). The
    /// key is never shown again: listings say only where a key comes from.
    pub fn set_api_key(&self, name: &str, key: &str) -> Result<(), ApiError> {
        if name.trim().is_empty() || key.trim().is_empty() {
            return Err(ApiError::new(ApiErrorCode::InvalidInput, "an API key needs a name and the key itself"));
        }
        keys::store(name, &keys::Secret::new(key.trim())).map_err(|e| key_error(e, "kept"))
    }

    /// Forgets the API key kept in the keyring under `name`; false when there was none.
    pub fn remove_api_key(&self, name: &str) -> Result<bool, ApiError> {
        keys::remove(name).map_err(|e| key_error(e, "removed"))
    }

    pub async fn list_models(&self, check: bool) -> Result<Vec<ModelView>, ApiError> {
        let settings = self.model_settings().await?;
        let local_default = settings.default.as_deref() == Some("local") || settings.models.is_empty();
        let local_problem = self.local.available().err().map(str::to_owned);
        let mut views = vec![ModelView {
            name: "local".into(),
            provider: Provider::Local.to_string(),
            model: MODEL_NAME.into(),
            base_url: String::new(),
            default: local_default,
            key: None,
            key_name: None,
            reachable: check.then_some(local_problem.is_none()),
            problem: if check { local_problem } else { None },
            input_price: None,
            output_price: None,
            max_tokens: None,
            context_window: None,
            check: settings.checks.get("local").cloned(),
            chosen: settings.default.as_deref() == Some("local"),
        }];
        // Asked all at once: a listing waits for the slowest model, not for their sum.
        let probes = futures_util::future::join_all(settings.models.values().map(|config| async move {
            if check {
                Some(models::probe(config).await)
            } else {
                None
            }
        }))
        .await;
        for ((name, config), probe) in settings.models.iter().zip(probes) {
            let (reachable, problem) = match probe {
                Some(Ok(())) => (Some(true), None),
                Some(Err(why)) => (Some(false), Some(why)),
                None => (None, None),
            };
            // A model kept before credentials in addresses were refused is shown masked.
            let problem = problem.map(|why| why.replace(config.base_url(), &masked_url(config.base_url())));
            views.push(ModelView {
                name: name.clone(),
                provider: config.provider.to_string(),
                model: config.model.clone(),
                base_url: masked_url(config.base_url()),
                default: settings.default.as_deref() == Some(name.as_str()),
                key: keys::find(config.key_name()).map(|(_, origin)| format!("{origin:?}").to_lowercase()),
                key_name: Some(config.key_name().to_owned()),
                reachable,
                problem,
                input_price: config.price.map(|p| p.input),
                output_price: config.price.map(|p| p.output),
                max_tokens: config.max_tokens,
                context_window: config.context_window,
                check: settings.checks.get(name).cloned(),
                chosen: true,
            });
        }
        Ok(views)
    }

    /// Asks the model `name` (a configured one, or `local`) what it can do
    /// ([`crewgraph_llm::check`]), and keeps the answer with it.
    pub async fn check_model(&self, name: &str) -> Result<ModelCheck, ApiError> {
        let settings = self.model_settings().await?;
        if name != "local" && !settings.models.contains_key(name) {
            return Err(ApiError::new(ApiErrorCode::NotFound, format!("no model named '{name}' is configured")));
        }
        // Asked afresh: what the last check found (tools through structured output)
        // is not assumed.
        let mut settings = settings;
        settings.checks.remove(name);
        let models = Models::new(settings, self.local.clone()).choose(name).map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e))?;
        let window = models.window_of(None).await.map(|(tokens, source)| (tokens, source.words()));
        let unbelievable = models.unbelievable_window(None).await;
        let mut found = check::check(Arc::new(models), window).await;
        if let Some(said) = unbelievable {
            found.context_source = Some(match found.context_window {
                Some(_) => format!("its server said {said} tokens, held to ten million"),
                None => format!("its server said {said} tokens, which cannot be right: set the window in Settings"),
            });
        }
        // Read again: another change may have landed while the model was asked.
        let mut settings = self.model_settings().await?;
        if name == "local" || settings.models.contains_key(name) {
            settings.checks.insert(name.to_owned(), found.clone());
            self.save_model_settings(&settings).await?;
        }
        Ok(found)
    }

    /// The addresses (`host:port`) where model servers are looked for.
    pub async fn model_servers(&self) -> Result<Vec<String>, ApiError> {
        let Some(store) = &self.settings else { return Ok(discover::DEFAULT_ADDRESSES.iter().map(|a| (*a).to_owned()).collect()) };
        match store.setting(discover::SETTING).await? {
            Some(value) => serde_json::from_value(value)
                .map_err(|e| ApiError::new(ApiErrorCode::Store, format!("the stored model server addresses cannot be read: {e}"))),
            None => Ok(discover::DEFAULT_ADDRESSES.iter().map(|a| (*a).to_owned()).collect()),
        }
    }

    /// Sets the addresses where model servers are looked for (`host:port`, loopback
    /// or not); an empty list means the usual ones again.
    pub async fn set_model_servers(&self, addresses: Vec<String>) -> Result<(), ApiError> {
        let mut checked = Vec::new();
        for address in addresses {
            let address = address.trim().trim_start_matches("http://").trim_end_matches('/').to_owned();
            let valid = address
                .rsplit_once(':')
                .is_some_and(|(host, port)| !host.is_empty() && !host.contains('/') && port.parse::<u16>().is_ok_and(|p| p > 0));
            if !valid {
                return Err(ApiError::new(
                    ApiErrorCode::InvalidInput,
                    format!(
                        "'{address}' is not an address to look for a model server at: write it as host:port, for example 127.0.0.1:11434"
                    ),
                ));
            }
            checked.push(address);
        }
        let store = self.settings_store()?;
        if checked.is_empty() {
            let defaults: Vec<String> = discover::DEFAULT_ADDRESSES.iter().map(|a| (*a).to_owned()).collect();
            return Ok(store.set_setting(discover::SETTING, &serde_json::json!(defaults)).await?);
        }
        Ok(store.set_setting(discover::SETTING, &serde_json::json!(checked)).await?)
    }

    /// The model servers running at the addresses of [`Api::model_servers`].
    pub async fn discover_models(&self) -> Result<Vec<FoundServer>, ApiError> {
        Ok(discover::discover(&self.model_servers().await?).await)
    }

    /// The model a run talks to, and what the person should be told about it.
    pub(crate) async fn llm_for(&self, crew: &Crew, options: &RunOptions) -> Result<(Arc<dyn LlmClient>, Vec<String>), ApiError> {
        if let Some(typed) = &options.typed {
            return Ok((Arc::new(typed.clone()), Vec::new()));
        }
        if let Some(source) = &options.script {
            let mut script = source.script()?;
            if let Some(used) = &options.used_replies {
                script.resume_after(used);
            }
            script.check(crew).map_err(|errors| {
                ApiError::new(ApiErrorCode::InvalidInput, errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
            })?;
            let scripted: Arc<dyn LlmClient> = Arc::new(ScriptedLlm::new(&script));
            return Ok(match (options.pace, &options.stepper) {
                (Pace::Instant, _) => (scripted, Vec::new()),
                (pace, stepper) => (Arc::new(Paced::new(scripted, pace, stepper.clone().unwrap_or_default())), Vec::new()),
            });
        }
        let mut models = Models::new(self.model_settings().await?, self.local.clone());
        if let Some(name) = &options.model {
            models = models.choose(name).map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e))?;
        }
        let notices = models.local_notice().into_iter().collect();
        Ok((Arc::new(models), notices))
    }
}
