//! Named models (`default`, `fast`, …): each maps to a provider, the provider's
//! model and where it is. Crew files name them (`model: fast`), the Go engine's
//! `primary:` / `backup:` blocks too; `provider/model` (`openai/gpt-4o-mini`) names
//! a model without configuring it, and `local` is always the built-in local model.
//!
//! With no model configured at all, every agent runs on the local model, so a crew
//! runs out of the box; once one is configured, a name that is not configured is an
//! error that lists the ones that are.

use std::collections::BTreeMap;

use crewgraph_engine::run::Usage;
use crewgraph_engine::ModelSpec;
use serde::{Deserialize, Serialize};

use crate::http::Limits;

/// A kind of model server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Any OpenAI-compatible endpoint.
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
    /// The built-in local model (llama.cpp's server with SmolLM2, started on demand).
    Local,
}

impl Provider {
    pub const ALL: [Provider; 3] = [Provider::Openai, Provider::Anthropic, Provider::Local];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Local => "local",
        }
    }

    pub fn parse(text: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.as_str().eq_ignore_ascii_case(text.trim()))
    }

    /// Where the provider lives when a model does not say.
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Provider::Openai => Some("https://api.openai.com/v1"),
            Provider::Anthropic => Some("https://api.anthropic.com"),
            Provider::Local => None,
        }
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One named model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    pub provider: Provider,
    /// The provider's name for the model (`gpt-4o-mini`); unused by `local`.
    #[serde(default)]
    pub model: String,
    /// Where the server is; None = the provider's usual address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The name its API key is kept under; None = the provider's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The most tokens a reply may take; None = the provider's default (Anthropic: 4096).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The tokens one request may hold, as the person set it; None = what its server
    /// reports or what is known of it ([`crate::window`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u32>,
    /// What its tokens cost, for the cost of runs; None = not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
    #[serde(default)]
    pub limits: Limits,
}

/// A model's price in US dollars per million tokens, as its provider lists it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Per million tokens read (the prompt).
    pub input: f64,
    /// Per million tokens written (the reply).
    pub output: f64,
}

impl Price {
    /// The price given as its two halves (US dollars per million tokens read and
    /// written): None when neither is given; both or neither.
    pub fn from_parts(input: Option<f64>, output: Option<f64>) -> Result<Option<Price>, String> {
        match (input, output) {
            (None, None) => Ok(None),
            (Some(input), Some(output)) => {
                let price = Price { input, output };
                price.check()?;
                Ok(Some(price))
            }
            _ => Err("a model's price needs both halves: dollars per million tokens read and per million written".into()),
        }
    }

    /// What `usage` cost at this price, in US dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        (f64::from(usage.input_tokens) * self.input + f64::from(usage.output_tokens) * self.output) / 1_000_000.0
    }

    /// Refuses a negative or non-finite price.
    pub fn check(&self) -> Result<(), String> {
        for (what, value) in [("read", self.input), ("written", self.output)] {
            if !value.is_finite() || value < 0.0 {
                return Err(format!("the price per million tokens {what} must be a number of dollars, 0 or more (it was {value})"));
            }
        }
        Ok(())
    }
}

impl ModelConfig {
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        ModelConfig {
            provider,
            model: model.into(),
            base_url: None,
            key: None,
            max_tokens: None,
            context_window: None,
            price: None,
            limits: Limits::default(),
        }
    }

    /// The base URL, the provider's default when none is set.
    pub fn base_url(&self) -> &str {
        self.base_url.as_deref().or(self.provider.default_base_url()).unwrap_or("")
    }

    /// The name of its API key.
    pub fn key_name(&self) -> &str {
        self.key.as_deref().unwrap_or(self.provider.as_str())
    }

    /// Checks what a person typed: a known provider's needs, an http(s) URL.
    pub fn check(&self) -> Result<(), String> {
        if self.provider != Provider::Local && self.model.trim().is_empty() {
            return Err(format!("a {} model needs the provider's model name (for example gpt-4o-mini)", self.provider));
        }
        if let Some(url) = &self.base_url {
            let shown = masked_url(url);
            let parsed = reqwest::Url::parse(url).map_err(|e| format!("the base URL '{shown}' is not a URL: {e}"))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                return Err(format!("the base URL '{shown}' must start with http:// or https:// and name a host"));
            }
            if !parsed.username().is_empty() || parsed.password().is_some() {
                return Err(format!(
                    "the base URL '{shown}' has a user name or password in it; give the address without it and keep the \
                     key in the key store instead (Settings, or `crewgraph keys set {}`)",
                    self.key_name()
                ));
            }
        }
        if let Some(price) = &self.price {
            price.check()?;
        }
        if let Some(window) = self.context_window {
            if u64::from(window) < crate::window::MIN_WINDOW || u64::from(window) > crate::window::MAX_WINDOW {
                return Err(format!(
                    "a context window of {window} tokens cannot be right: give a number from {} to {} (the model's documentation says it)",
                    crate::window::MIN_WINDOW,
                    crate::window::MAX_WINDOW
                ));
            }
            if let Some(reply) = self.max_tokens.filter(|reply| *reply >= window) {
                return Err(format!(
                    "the most tokens a reply may take ({reply}) must be less than the context window ({window} tokens): the prompt needs room too"
                ));
            }
        }
        Ok(())
    }
}

/// Every named model and which one is the default. Kept in the store's settings
/// under [`ModelSettings::KEY`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelSettings {
    /// The model agents without a `model:` use; None = the only one, or `local`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(default)]
    pub models: BTreeMap<String, ModelConfig>,
    /// What the last check of each model found (`local` included), by its name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<String, crate::check::ModelCheck>,
}

/// What a model reference comes to.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    /// A configured or `provider/model` model: its name (for messages) and config.
    Remote(String, Box<ModelConfig>),
    /// The built-in local model.
    Local,
}

impl ModelSettings {
    /// The settings key the models are stored under.
    pub const KEY: &'static str = "models";

    /// True when no model is configured: everything runs on the local model.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// The model `spec` names (None = the default model).
    pub fn resolve(&self, spec: Option<&ModelSpec>) -> Result<Resolved, String> {
        let name = spec.and_then(|s| s.model.as_deref()).map(str::trim).filter(|n| !n.is_empty());
        let Some(name) = name else { return self.default_model() };
        if name == "local" {
            return Ok(Resolved::Local);
        }
        if let Some(config) = self.models.get(name) {
            return Ok(Resolved::Remote(name.to_owned(), Box::new(config.clone())));
        }
        if self.is_empty() {
            return Ok(Resolved::Local);
        }
        if name == "default" {
            return self.default_model();
        }
        let spec = spec.cloned().unwrap_or_default();
        if let Some(provider) = spec.provider.as_deref() {
            let provider =
                Provider::parse(provider).ok_or_else(|| format!("unknown provider '{provider}' (known: openai, anthropic, local)"))?;
            let mut config = ModelConfig::new(provider, name);
            config.base_url = spec.provider_url.clone();
            return Ok(Resolved::Remote(spec.to_string(), Box::new(config)));
        }
        if let Some((provider, model)) = name.split_once('/') {
            if let Some(provider) = Provider::parse(provider) {
                return Ok(Resolved::Remote(name.to_owned(), Box::new(ModelConfig::new(provider, model))));
            }
        }
        Err(format!(
            "no model named '{name}' is configured (configured: {}); add it in Settings or with 'crewgraph models add', or write provider/model",
            self.models.keys().cloned().collect::<Vec<_>>().join(", ")
        ))
    }

    fn default_model(&self) -> Result<Resolved, String> {
        match &self.default {
            Some(name) if name == "local" => Ok(Resolved::Local),
            Some(name) => self
                .models
                .get(name)
                .map(|config| Resolved::Remote(name.clone(), Box::new(config.clone())))
                .ok_or_else(|| format!("the default model '{name}' is not configured")),
            None => match self.models.len() {
                0 => Ok(Resolved::Local),
                1 => {
                    Ok(self.models.iter().next().map(|(n, c)| Resolved::Remote(n.clone(), Box::new(c.clone()))).unwrap_or(Resolved::Local))
                }
                _ => {
                    if let Some(config) = self.models.get("default") {
                        return Ok(Resolved::Remote("default".to_owned(), Box::new(config.clone())));
                    }
                    Err("several models are configured and none is the default: choose one in Settings or with 'crewgraph models default NAME'".to_owned())
                }
            },
        }
    }
}

/// `url` fit to show: a user name or password in it and the values of its query
/// (where some services take a key) as `***`. Text that is not a URL is shown as is.
pub fn masked_url(url: &str) -> String {
    let Ok(mut parsed) = reqwest::Url::parse(url) else {
        // Not a URL, but perhaps `scheme://user:secret@…` all the same.
        return match (url.find("://"), url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => format!("{}***{}", &url[..scheme + 3], &url[at..]),
            _ => url.to_owned(),
        };
    };
    let mut masked = false;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        let _ = parsed.set_username("***");
        let _ = parsed.set_password(None);
        masked = true;
    }
    if parsed.query().is_some() {
        let keys: Vec<String> = parsed.query_pairs().map(|(k, _)| k.into_owned()).collect();
        parsed.query_pairs_mut().clear().extend_pairs(keys.iter().map(|k| (k.as_str(), "***")));
        masked = true;
    }
    if masked {
        parsed.to_string()
    } else {
        url.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_a_base_url_are_masked_and_plain_urls_kept() {
        assert_eq!(masked_url("https://api.openai.com/v1"), "https://api.openai.com/v1");
        let masked = masked_url("https://me:sk-secret@host.example/v1?api-key=sk-other&x=1");
        assert!(!masked.contains("sk-secret") && !masked.contains("sk-other"), "{masked}");
        assert!(masked.contains("host.example/v1"), "{masked}");
        assert_eq!(masked_url("https://me:se cret@host/v1"), "https://***@host/v1");
    }

    #[test]
    fn a_base_url_with_credentials_is_refused_without_repeating_them() {
        let mut config = ModelConfig::new(Provider::Openai, "gpt-4o-mini");
        config.base_url = Some("https://me:sk-secret@host.example/v1".into());
        let error = config.check().unwrap_err();
        assert!(error.contains("user name or password") && error.contains("crewgraph keys set openai"), "{error}");
        assert!(!error.contains("sk-secret"), "{error}");
    }

    fn settings() -> ModelSettings {
        let mut settings = ModelSettings::default();
        settings.models.insert("fast".into(), ModelConfig::new(Provider::Openai, "gpt-4o-mini"));
        settings.models.insert("smart".into(), ModelConfig::new(Provider::Anthropic, "claude-sonnet-4-5"));
        settings.default = Some("smart".into());
        settings
    }

    #[test]
    fn nothing_configured_means_the_local_model_for_everyone() {
        let empty = ModelSettings::default();
        assert_eq!(empty.resolve(None), Ok(Resolved::Local));
        assert_eq!(empty.resolve(Some(&ModelSpec::named("fast"))), Ok(Resolved::Local));
        let go = ModelSpec {
            model: Some("default".into()),
            provider: Some("openai".into()),
            provider_url: Some("http://localhost:11434/v1".into()),
        };
        assert_eq!(empty.resolve(Some(&go)), Ok(Resolved::Local));
    }

    #[test]
    fn names_resolve_to_configured_models_then_provider_slash_model() {
        let settings = settings();
        assert!(matches!(settings.resolve(None), Ok(Resolved::Remote(n, _)) if n == "smart"));
        assert!(matches!(settings.resolve(Some(&ModelSpec::named("default"))), Ok(Resolved::Remote(n, _)) if n == "smart"));
        assert!(
            matches!(settings.resolve(Some(&ModelSpec::named("fast"))), Ok(Resolved::Remote(n, c)) if n == "fast" && c.model == "gpt-4o-mini")
        );
        assert_eq!(settings.resolve(Some(&ModelSpec::named("local"))), Ok(Resolved::Local));
        let Ok(Resolved::Remote(_, config)) = settings.resolve(Some(&ModelSpec::named("openai/gpt-4.1"))) else { panic!() };
        assert_eq!((config.provider, config.model.as_str(), config.base_url()), (Provider::Openai, "gpt-4.1", "https://api.openai.com/v1"));
        let go = ModelSpec {
            model: Some("llama3".into()),
            provider: Some("openai".into()),
            provider_url: Some("http://localhost:11434/v1".into()),
        };
        let Ok(Resolved::Remote(name, config)) = settings.resolve(Some(&go)) else { panic!() };
        assert_eq!((name.as_str(), config.base_url()), ("openai/llama3 at http://localhost:11434/v1", "http://localhost:11434/v1"));
    }

    #[test]
    fn an_unknown_name_lists_the_configured_ones() {
        let error = settings().resolve(Some(&ModelSpec::named("gpt5"))).unwrap_err();
        assert!(error.contains("no model named 'gpt5' is configured (configured: fast, smart)"), "{error}");
        let bad = ModelSpec { model: Some("x".into()), provider: Some("acme".into()), provider_url: None };
        assert_eq!(settings().resolve(Some(&bad)).unwrap_err(), "unknown provider 'acme' (known: openai, anthropic, local)");
    }

    #[test]
    fn several_models_without_a_default_is_an_error_unless_one_is_called_default() {
        let mut settings = settings();
        settings.default = None;
        assert!(settings.resolve(None).unwrap_err().contains("none is the default"));
        settings.models.insert("default".into(), ModelConfig::new(Provider::Openai, "gpt-4o"));
        assert!(matches!(settings.resolve(None), Ok(Resolved::Remote(n, _)) if n == "default"));
    }

    #[test]
    fn configs_are_checked() {
        assert!(ModelConfig::new(Provider::Openai, "").check().unwrap_err().contains("needs the provider's model name"));
        let mut config = ModelConfig::new(Provider::Openai, "m");
        config.base_url = Some("ftp://x".into());
        assert!(config.check().unwrap_err().contains("must start with http:// or https://"));
        config.base_url = Some("not a url".into());
        assert!(config.check().unwrap_err().contains("is not a URL"));
        config.base_url = Some("http://127.0.0.1:8080/v1".into());
        assert_eq!(config.check(), Ok(()));
    }
}
