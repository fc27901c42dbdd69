//! `crewgraph models` (list the models and whether each answers; add, remove, make
//! one the default) and `crewgraph keys` (store or remove an API key in the OS
//! keyring, or see where each key comes from). Models live in the database's
//! settings; keys never do.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use crewgraph::api::{Api, ModelView};
use crewgraph_llm::check::ModelCheck;
use crewgraph_llm::keys::{self, Secret};
use crewgraph_llm::settings::{ModelConfig, Price, Provider};

use super::store::open_api;
use super::terminal::say;
use super::{block_on, fail};

/// What `models add` is given.
#[derive(Debug, clap::Args)]
pub struct NewModel {
    /// The name crew files use (`model: NAME`): default, fast …
    pub name: String,
    /// openai (any OpenAI-compatible server), anthropic, or local.
    #[arg(long)]
    pub provider: String,
    /// The provider's name for the model (gpt-4o-mini, claude-sonnet-4-5 …).
    #[arg(long)]
    pub model: Option<String>,
    /// Where the server is (default: the provider's own address).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The name its API key is kept under (default: the provider's name).
    #[arg(long, value_name = "NAME")]
    pub key: Option<String>,
    /// The most tokens a reply may take.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// The tokens one request may hold, prompt and reply together (default: what its
    /// server reports, or what is known of the model).
    #[arg(long, value_name = "N")]
    pub context_window: Option<u32>,
    /// Its price in US dollars per million tokens read (with --output-price), so runs say what they cost.
    #[arg(long, value_name = "USD")]
    pub input_price: Option<f64>,
    /// Its price in US dollars per million tokens written.
    #[arg(long, value_name = "USD")]
    pub output_price: Option<f64>,
    /// Make it the default model.
    #[arg(long)]
    pub default: bool,
}

fn with_api(db: Option<&Path>, go: impl AsyncFnOnce(Api) -> Result<ExitCode, String>) -> ExitCode {
    open_api(db).and_then(|api| block_on(go(api))?).unwrap_or_else(fail)
}

/// Lists every model with whether it answers; exits 1 when the default does not.
pub fn list(db: Option<&Path>, json: bool) -> ExitCode {
    with_api(db, async |api| {
        let views = api.list_models(true).await.map_err(|e| e.to_string())?;
        if json {
            for view in &views {
                say!("{}", serde_json::to_string(view).map_err(|e| e.to_string())?);
            }
        } else {
            print_table(&views);
        }
        let default_down = views.iter().any(|v| v.default && v.reachable == Some(false));
        Ok(if default_down { ExitCode::FAILURE } else { ExitCode::SUCCESS })
    })
}

fn print_table(views: &[ModelView]) {
    say!("{:<2}{:<14} {:<10} {:<34} {:<12} STATUS", "", "NAME", "PROVIDER", "MODEL", "KEY");
    for view in views {
        let status = match (view.reachable, &view.problem) {
            (Some(true), _) => "reachable".to_owned(),
            (_, Some(problem)) => format!("not reachable: {problem}"),
            _ => "not checked".to_owned(),
        };
        let model = if view.base_url.is_empty() { view.model.clone() } else { format!("{} at {}", view.model, view.base_url) };
        let key = view.key.clone().unwrap_or_else(|| if view.provider == "local" { "-".into() } else { "none".into() });
        say!("{:<2}{:<14} {:<10} {:<34} {:<12} {status}", if view.default { "*" } else { "" }, view.name, view.provider, model, key);
    }
    say!("(* = the default model, used by agents that name none)");
}

/// Adds a model.
pub fn add(db: Option<&Path>, new: NewModel) -> ExitCode {
    with_api(db, async |api| {
        let provider = Provider::parse(&new.provider)
            .ok_or_else(|| format!("unknown provider '{}' (known: openai, anthropic, local)", new.provider))?;
        let mut config = ModelConfig::new(provider, new.model.unwrap_or_default());
        config.base_url = new.base_url;
        config.key = new.key;
        config.max_tokens = new.max_tokens;
        config.context_window = new.context_window;
        config.price = Price::from_parts(new.input_price, new.output_price)?;
        api.add_model(&new.name, config, new.default).await.map_err(|e| e.to_string())?;
        say!("added model '{}'", new.name);
        Ok(ExitCode::SUCCESS)
    })
}

/// Removes a model.
pub fn remove(db: Option<&Path>, name: &str) -> ExitCode {
    with_api(db, async |api| {
        api.remove_model(name).await.map_err(|e| e.to_string())?;
        say!("removed model '{name}'");
        Ok(ExitCode::SUCCESS)
    })
}

/// Makes a model the default.
pub fn set_default(db: Option<&Path>, name: &str) -> ExitCode {
    with_api(db, async |api| {
        api.set_default_model(name).await.map_err(|e| e.to_string())?;
        say!("'{name}' is now the default model");
        Ok(ExitCode::SUCCESS)
    })
}

/// Stores the key named `name` in the keyring, read from stdin (so it stays out of
/// the shell's history and the process list).
pub fn set_key(name: &str) -> ExitCode {
    let mut text = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut text) {
        return fail(format!("cannot read the key from stdin: {error}"));
    }
    let text = text.trim();
    if text.is_empty() {
        return fail(format!("no key on stdin (pipe it in: crewgraph keys set {name} < key.txt)"));
    }
    match keys::store(name, &Secret::new(text)) {
        Ok(()) => {
            say!("stored the key '{name}' in the keyring");
            ExitCode::SUCCESS
        }
        Err(error) => fail(error),
    }
}

/// Removes the key named `name` from the keyring.
pub fn remove_key(name: &str) -> ExitCode {
    match keys::remove(name) {
        Ok(true) => {
            say!("removed the key '{name}' from the keyring");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            say!("the keyring holds no key '{name}'");
            ExitCode::SUCCESS
        }
        Err(error) => fail(error),
    }
}

/// Says, for each provider's key, where it would come from (never the key).
pub fn key_status() -> ExitCode {
    for name in ["openai", "anthropic"] {
        let origin = match keys::find(name) {
            Some((_, origin)) => format!("set ({})", format!("{origin:?}").to_lowercase()),
            None => format!("not set (keyring, or {})", keys::env_names(name).join(" / ")),
        };
        say!("{name:<10} {origin}");
    }
    ExitCode::SUCCESS
}

/// Asks a model what it can do and prints it; exits 1 when it does not answer.
pub fn check(db: Option<&Path>, name: &str, json: bool) -> ExitCode {
    with_api(db, async |api| {
        let found = api.check_model(name).await.map_err(|e| e.to_string())?;
        if json {
            say!("{}", serde_json::to_string(&found).map_err(|e| e.to_string())?);
        } else {
            print_check(name, &found);
        }
        Ok(if found.answers { ExitCode::SUCCESS } else { ExitCode::FAILURE })
    })
}

fn print_check(name: &str, found: &ModelCheck) {
    let yes_no = |value: Option<bool>| match value {
        Some(true) => "yes",
        Some(false) => "no",
        None => "not asked",
    };
    match (&found.problem, found.answers) {
        (Some(problem), false) => say!("{name}: does not answer — {problem}"),
        _ => say!("{name}: answers"),
    }
    match (found.context_window, &found.context_source) {
        (Some(tokens), Some(source)) => say!("  context window     {tokens} tokens ({source})"),
        (Some(tokens), None) => say!("  context window     {tokens} tokens"),
        _ => say!("  context window     not known (set one with: crewgraph models add {name} ... --context-window N)"),
    }
    say!("  streaming          {}", yes_no(found.streaming));
    let tool_calling = match (found.tools, found.tool_json) {
        (Some(true), Some(true)) => "yes, through structured output (it has no tool calling of its own)".to_owned(),
        (Some(false), Some(true)) => "no — its tools are offered through structured output instead".to_owned(),
        _ => yes_no(found.tools).into(),
    };
    say!("  tool calling       {tool_calling}");
    say!("  structured output  {}", yes_no(found.structured));
    if let Some(ms) = found.first_token_ms {
        say!("  first token after  {ms} ms");
    }
    if let Some(speed) = found.tokens_per_second {
        say!("  writes             {speed} tokens a second");
    }
}

/// Lists the model servers running where they are looked for (or at `addresses`).
pub fn discover(db: Option<&Path>, addresses: Vec<String>, json: bool) -> ExitCode {
    with_api(db, async |api| {
        let found = if addresses.is_empty() {
            api.discover_models().await.map_err(|e| e.to_string())?
        } else {
            crewgraph_llm::discover::discover(&addresses).await
        };
        if json {
            for server in &found {
                say!("{}", serde_json::to_string(server).map_err(|e| e.to_string())?);
            }
        } else if found.is_empty() {
            say!("No model server answers on this computer (looked for Ollama, LM Studio, llama.cpp, vLLM, Jan and LocalAI).");
        } else {
            for server in &found {
                say!("{} at {}", server.kind, server.base_url);
                for model in &server.models {
                    say!("  {model}");
                }
            }
            say!("Add one with: crewgraph models add NAME --provider openai --model MODEL --base-url URL");
        }
        Ok(ExitCode::SUCCESS)
    })
}
