//! Tool servers of the whole app (Settings → Tool servers, `docs/tools.md`): kept in
//! the store's settings in the crew file's shape (`command`/`args`/`env`/`cwd`, or
//! `url`/`headers`, `timeout`), so a secret is a `{key: NAME}` reference there too,
//! never the secret itself. Every crew's agents can use them; a crew's own server of
//! the same name wins. A list can be imported from the `mcpServers` JSON that Claude
//! Desktop, Cursor and VS Code use: its literal `env` and header values go into the
//! OS keyring (or, with none, are left for the person to set in the environment) and
//! the stored server names them.
//!
//! A check starts the server (the same one the runs use) and lists its tools; the
//! picker of the agent form lists the tools of every server a crew can use.

use std::collections::BTreeMap;
use std::time::Duration;

use crewgraph_engine::crew::ToolServer;
use crewgraph_engine::diagnostic::Problem;
use crewgraph_engine::load::{crew_folder, start_servers_in, Loaded};
use crewgraph_engine::run::ToolHost;
use crewgraph_engine::validate::check_listed_tools;
use crewgraph_llm::keys::{self, Secret};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode};

/// The setting the app's tool servers are kept under.
pub const SETTING: &str = "tool_servers";
/// The longest a check or a listing waits for one server.
const LISTING_LIMIT: Duration = Duration::from_secs(45);

/// One tool server of the app, as Settings show it.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ToolServerView {
    #[schema(example = "files")]
    pub name: String,
    /// Its declaration, as in a crew file's `tools.servers`.
    #[schema(value_type = Object)]
    #[ts(as = "crewgraph_engine::file::ServerFile")]
    pub spec: Value,
    /// What it runs or where it is, in a few words (`npx -y …`, a URL).
    pub summary: String,
    /// Where its standard error goes (a command's), once started.
    pub log: Option<String>,
}

/// What a check of a server found.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ServerCheck {
    pub name: String,
    /// It started and listed its tools.
    pub running: bool,
    pub tools: Vec<ToolInfo>,
    /// Why not, in words.
    pub error: Option<String>,
    /// Its log file (a command's).
    pub log: Option<String>,
}

/// One tool a server offers, for the agent form's picker.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ToolInfo {
    /// As an agent lists it: `server.tool`.
    #[schema(example = "files.read_text_file")]
    pub name: String,
    pub description: String,
    /// Its server marks it read-only (so by default it is allowed without asking).
    pub read_only: bool,
}

/// The tools of every server a crew can use, server by server.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ServerTools {
    pub server: String,
    /// `crew` (declared in the crew file) or `app` (Settings).
    pub origin: String,
    pub tools: Vec<ToolInfo>,
    pub error: Option<String>,
}

/// What an import did.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ImportedServers {
    /// The servers added (or replaced).
    pub added: Vec<String>,
    /// What the person should know: values kept in the keyring, values to set in the
    /// environment, servers left out.
    pub notes: Vec<String>,
}

impl Api {
    /// The app's tool servers, by name.
    pub async fn tool_servers(&self) -> Result<Vec<ToolServerView>, ApiError> {
        let stored = self.stored_tool_servers().await?;
        let mut views = Vec::new();
        for (name, spec) in stored {
            let server = server_of(&name, &spec).ok();
            let summary = server.as_ref().map(ToolServer::describe).unwrap_or_default();
            let log = server
                .filter(|s| matches!(s.transport, crewgraph_engine::crew::ServerTransport::Stdio { .. }))
                .map(|_| self.tool_host.logs().join(format!("{name}.log")).display().to_string());
            views.push(ToolServerView { name, spec, summary, log });
        }
        Ok(views)
    }

    /// Adds or replaces the app's server `name`; refused in words when the
    /// declaration is not one a crew file could hold.
    pub async fn put_tool_server(&self, name: &str, spec: Value) -> Result<ToolServerView, ApiError> {
        let name = name.trim();
        let spec = without_nulls(spec);
        let server = server_of(name, &spec)?;
        let mut stored = self.stored_tool_servers().await?;
        stored.insert(name.to_owned(), spec.clone());
        self.save_tool_servers(&stored).await?;
        Ok(ToolServerView { name: name.to_owned(), spec, summary: server.describe(), log: None })
    }

    /// Forgets the app's server `name`; false when there was none.
    pub async fn remove_tool_server(&self, name: &str) -> Result<bool, ApiError> {
        let mut stored = self.stored_tool_servers().await?;
        let removed = stored.remove(name.trim()).is_some();
        if removed {
            self.save_tool_servers(&stored).await?;
        }
        Ok(removed)
    }

    /// Adds the servers of an `mcpServers` JSON text (Claude Desktop, Cursor, VS Code).
    pub async fn import_tool_servers(&self, text: &str) -> Result<ImportedServers, ApiError> {
        let invalid = |why: String| ApiError::new(ApiErrorCode::InvalidInput, why);
        let json: Value = serde_json::from_str(text).map_err(|e| invalid(format!("this is not JSON: {e}")))?;
        let servers = json
            .get("mcpServers")
            .or_else(|| json.get("servers"))
            .and_then(Value::as_object)
            .ok_or_else(|| invalid("there is no \"mcpServers\" (or \"servers\") object in it".into()))?;
        let mut stored = self.stored_tool_servers().await?;
        let (mut added, mut notes) = (Vec::new(), Vec::new());
        for (name, entry) in servers {
            let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
            let spec = match imported(&name, entry, &mut notes) {
                Ok(spec) => spec,
                Err(why) => {
                    notes.push(format!("{name} was left out: {why}"));
                    continue;
                }
            };
            if let Err(error) = server_of(&name, &spec) {
                notes.push(format!("{name} was left out: {}", error.message));
                continue;
            }
            stored.insert(name.clone(), spec);
            added.push(name);
        }
        self.save_tool_servers(&stored).await?;
        Ok(ImportedServers { added, notes })
    }

    /// Starts the app's server `name` (if it is not running) and lists its tools.
    pub async fn check_tool_server(&self, name: &str) -> Result<ServerCheck, ApiError> {
        let stored = self.stored_tool_servers().await?;
        let spec = stored
            .get(name.trim())
            .ok_or_else(|| ApiError::new(ApiErrorCode::NotFound, format!("there is no tool server called '{}'", name.trim())))?;
        let server = server_of(name.trim(), spec)?;
        let log = self.log_of(&server);
        Ok(match self.list_tools_of(&server).await {
            Ok(tools) => ServerCheck { name: server.name, running: true, tools, error: None, log },
            Err(error) => ServerCheck { name: server.name, running: false, tools: Vec::new(), error: Some(error), log },
        })
    }

    /// The tools of every server a crew can use: those its file declares (`servers`,
    /// the crew file's `tools.servers` as JSON, maybe not saved yet; started in the
    /// folder of the crew file at `path`, as a run starts them) and the app's.
    pub async fn crew_tools(&self, servers: Option<Value>, path: Option<&std::path::Path>) -> Result<Vec<ServerTools>, ApiError> {
        let mut all: Vec<(ToolServer, &'static str)> = Vec::new();
        if let Some(Value::Object(declared)) = servers.map(without_nulls) {
            let mut own: Vec<ToolServer> = declared.iter().filter_map(|(name, spec)| server_of(name, spec).ok()).collect();
            if let Some(path) = path {
                start_servers_in(&mut own, &crew_folder(path));
            }
            all.extend(own.into_iter().map(|server| (server, "crew")));
        }
        for server in self.app_tool_servers().await? {
            if !all.iter().any(|(s, _)| s.name == server.name) {
                all.push((server, "app"));
            }
        }
        let listings = futures_util::future::join_all(all.iter().map(|(server, _)| self.list_tools_of(server))).await;
        Ok(all
            .into_iter()
            .zip(listings)
            .map(|((server, origin), listed)| match listed {
                Ok(tools) => ServerTools { server: server.name, origin: origin.to_owned(), tools, error: None },
                Err(error) => ServerTools { server: server.name, origin: origin.to_owned(), tools: Vec::new(), error: Some(error) },
            })
            .collect())
    }

    /// Adds the app's servers to `crew`'s own (a crew's server of the same name wins).
    pub(crate) async fn with_app_tool_servers(&self, crew: &mut crewgraph_engine::Crew) -> Result<(), ApiError> {
        for server in self.app_tool_servers().await? {
            if !crew.tool_servers.iter().any(|s| s.name == server.name) {
                crew.tool_servers.push(server);
            }
        }
        Ok(())
    }

    /// The app's servers, ready for runs (any that no longer reads is left out).
    pub(crate) async fn app_tool_servers(&self) -> Result<Vec<ToolServer>, ApiError> {
        Ok(self.stored_tool_servers().await?.iter().filter_map(|(name, spec)| server_of(name, spec).ok()).collect())
    }

    async fn list_tools_of(&self, server: &ToolServer) -> Result<Vec<ToolInfo>, String> {
        let cancel = CancellationToken::new();
        let listed = tokio::time::timeout(LISTING_LIMIT, self.tool_host.tools(server, &cancel))
            .await
            .map_err(|_| format!("the tool server '{}' did not list its tools within {}s", server.name, LISTING_LIMIT.as_secs()))??;
        Ok(listed
            .into_iter()
            .map(|tool| ToolInfo {
                name: format!("{}.{}", server.name, tool.name),
                description: tool.description,
                read_only: tool.read_only,
            })
            .collect())
    }

    fn log_of(&self, server: &ToolServer) -> Option<String> {
        matches!(server.transport, crewgraph_engine::crew::ServerTransport::Stdio { .. })
            .then(|| self.tool_host.logs().join(format!("{}.log", server.name)).display().to_string())
    }

    async fn stored_tool_servers(&self) -> Result<BTreeMap<String, Value>, ApiError> {
        let Some(store) = &self.settings else { return Ok(BTreeMap::new()) };
        let stored: BTreeMap<String, Value> = match store.setting(SETTING).await? {
            None => BTreeMap::new(),
            Some(value) => serde_json::from_value(value)
                .map_err(|e| ApiError::new(ApiErrorCode::Store, format!("the stored tool servers cannot be read: {e}")))?,
        };
        self.remember_app_servers(&stored);
        Ok(stored)
    }

    async fn save_tool_servers(&self, servers: &BTreeMap<String, Value>) -> Result<(), ApiError> {
        self.settings_store()?.set_setting(SETTING, &serde_json::json!(servers)).await?;
        self.remember_app_servers(servers);
        Ok(())
    }

    fn remember_app_servers(&self, servers: &BTreeMap<String, Value>) {
        if let Ok(mut known) = self.app_servers.write() {
            *known = servers.iter().filter_map(|(name, spec)| server_of(name, spec).ok()).collect();
        }
    }

    /// Reads the app's servers again, so [`Api::known_tools`] knows them.
    pub(crate) async fn refresh_app_servers(&self) {
        let _ = self.stored_tool_servers().await;
    }

    /// `loaded` as far as the tool servers say: no warning about tools the app's
    /// servers provide (a crew may use them without declaring them), and an error for
    /// a tool a running server said it does not have (`check_listed_tools`).
    pub(crate) fn known_tools(&self, mut loaded: Loaded) -> Loaded {
        let app = self.app_servers.read().map(|known| known.clone()).unwrap_or_default();
        let provided = |tool: &str| {
            app.iter().any(|server| {
                tool == server.name
                    || tool.strip_prefix(server.name.as_str()).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('/'))
            })
        };
        loaded.diagnostics.retain(|d| !matches!(&d.problem, Problem::UnknownTool { tool, .. } if provided(tool)));
        let mut servers = loaded.crew.as_ref().map(|crew| crew.tool_servers.clone()).unwrap_or_default();
        for server in app {
            if !servers.iter().any(|s| s.name == server.name) {
                servers.push(server);
            }
        }
        check_listed_tools(&mut loaded, &servers, |server| self.tool_host.listed(server));
        loaded
    }
}

/// A declaration read as a crew file would read it: the server, or every problem in
/// the person's words.
pub fn server_of(name: &str, spec: &Value) -> Result<ToolServer, ApiError> {
    let invalid = |why: String| ApiError::new(ApiErrorCode::InvalidInput, why);
    if !spec.is_object() {
        return Err(invalid(format!("the tool server '{name}' must be described by a mapping of command, args … or url, headers …")));
    }
    let crew = serde_json::json!({
        "name": "Settings",
        "entry_point": "a",
        "agents": [{"id": "a", "is_terminal": true}],
        "tools": {"servers": {name: spec}},
    });
    let loaded = crewgraph_engine::load::load_str("settings", &crew.to_string());
    let problems: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == crewgraph_engine::diagnostic::Severity::Error)
        .map(|d| d.problem.plain())
        .collect();
    if !problems.is_empty() {
        return Err(invalid(problems.join(" ")));
    }
    loaded
        .crew
        .and_then(|crew| crew.tool_servers.into_iter().next())
        .ok_or_else(|| invalid(format!("the tool server '{name}' cannot be read")))
}

/// One `mcpServers` entry in the crew file's shape, its literal values made keys.
fn imported(name: &str, entry: &Value, notes: &mut Vec<String>) -> Result<Value, String> {
    let entry = entry.as_object().ok_or("it is not an object")?;
    let mut spec = Map::new();
    for field in ["command", "args", "cwd", "url"] {
        if let Some(value) = entry.get(field).filter(|v| !v.is_null()) {
            spec.insert(field.to_owned(), value.clone());
        }
    }
    if entry.get("type").and_then(Value::as_str) == Some("sse") {
        return Err("it uses the old SSE transport; Crewgraph speaks stdio and Streamable HTTP".into());
    }
    for (field, what) in [("env", "environment variable"), ("headers", "header")] {
        let Some(values) = entry.get(field).and_then(Value::as_object) else { continue };
        let mut kept = Map::new();
        for (var, value) in values {
            let Some(text) = value.as_str().map(str::to_owned).or_else(|| (!value.is_null()).then(|| value.to_string())) else { continue };
            let key = format!("mcp-{name}-{}", var.to_ascii_lowercase().replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
            kept.insert(var.clone(), serde_json::json!({"key": key}));
            match keys::store(&key, &Secret::new(text)) {
                Ok(()) => notes.push(format!("{name}: the {what} {var} is kept in the OS keyring as '{key}'")),
                Err(error) => notes.push(format!(
                    "{name}: the {what} {var} was not kept ({error}); set it in the environment as {} before running",
                    keys::env_names(&key)[0]
                )),
            }
        }
        spec.insert(field.to_owned(), Value::Object(kept));
    }
    Ok(Value::Object(spec))
}

/// `null` fields left out (a form sends them for empty inputs).
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k, without_nulls(v))).collect()),
        other => other,
    }
}
