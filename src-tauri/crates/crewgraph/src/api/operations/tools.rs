//! The app's tool servers (Settings → Tool servers, `docs/tools.md`): list them,
//! add or replace one, remove one, import an `mcpServers` file, check one (start it
//! and list its tools); and the tools every server a crew can use offers, for the
//! agent form's picker.

use serde::Deserialize;
use serde_json::Value;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::requests::Nothing;
use crate::api::operation::{schema_of, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode, ImportedServers, ServerCheck, ServerTools, ToolServerView};

/// The app's tool servers.
pub struct ListToolServers;

impl Operation for ListToolServers {
    type Request = Nothing;
    const NAME: &'static str = "list_tool_servers";
    const SUMMARY: &'static str = "The tool servers every crew can use (Settings), in the crew file's shape";
    const ROUTE: Option<Route> = Some(Route::get("/tool-servers", "tools"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = Vec<ToolServerView>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<ToolServerView>>(schemas)
    }

    async fn call(_: Nothing, api: &Api) -> Result<Vec<ToolServerView>, ApiError> {
        api.tool_servers().await
    }
}

/// A tool server to add or replace, as a crew file's `tools.servers` entry.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct PutToolServer {
    #[schema(example = "files")]
    pub name: String,
    /// `{command, args?, env?, cwd?, timeout?}` or `{url, headers?, timeout?}`; a secret
    /// value is `{key: NAME}`.
    #[schema(value_type = Object)]
    #[ts(as = "crewgraph_engine::file::ServerFile")]
    pub spec: Value,
}

impl Operation for PutToolServer {
    type Request = Self;
    const NAME: &'static str = "put_tool_server";
    const SUMMARY: &'static str = "Adds or replaces a tool server every crew can use (refused in words when a crew file could not hold it)";
    const ROUTE: Option<Route> = Some(Route::put("/tool-servers/{name}", "tools"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = ToolServerView;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<ToolServerView>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<ToolServerView, ApiError> {
        api.put_tool_server(&request.name, request.spec).await
    }
}

/// A tool server of the app, by name.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct WhichToolServer {
    #[schema(example = "files")]
    pub name: String,
}

/// Forgets a tool server of the app.
pub struct RemoveToolServer;

impl Operation for RemoveToolServer {
    type Request = WhichToolServer;
    const NAME: &'static str = "remove_tool_server";
    const SUMMARY: &'static str = "Forgets a tool server of the app (`not_found`: there is none of that name)";
    const ROUTE: Option<Route> = Some(Route::delete("/tool-servers/{name}", "tools").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: WhichToolServer, api: &Api) -> Result<(), ApiError> {
        if api.remove_tool_server(&request.name).await? {
            Ok(())
        } else {
            Err(ApiError::new(ApiErrorCode::NotFound, format!("there is no tool server called '{}'", request.name.trim())))
        }
    }
}

/// An `mcpServers` file to import.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ImportToolServers {
    /// The JSON text (Claude Desktop's `claude_desktop_config.json`, Cursor's or VS Code's `mcp.json`).
    #[schema(example = r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#)]
    pub text: String,
}

impl Operation for ImportToolServers {
    type Request = Self;
    const NAME: &'static str = "import_tool_servers";
    const SUMMARY: &'static str = "Adds the servers of an `mcpServers` JSON text; its literal env and header values go into the OS \
                                   keyring (the stored servers name them)";
    const ROUTE: Option<Route> = Some(Route::post("/tool-servers/import", "tools"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = ImportedServers;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<ImportedServers>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<ImportedServers, ApiError> {
        api.import_tool_servers(&request.text).await
    }
}

/// Starts a tool server of the app and lists its tools.
pub struct CheckToolServer;

impl Operation for CheckToolServer {
    type Request = WhichToolServer;
    const NAME: &'static str = "check_tool_server";
    const SUMMARY: &'static str = "Starts a tool server of the app (if it is not running) and lists its tools; a failure is said in \
                                   the answer, with its log";
    const ROUTE: Option<Route> = Some(Route::post("/tool-servers/{name}/check", "tools"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = ServerCheck;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<ServerCheck>(schemas)
    }

    async fn call(request: WhichToolServer, api: &Api) -> Result<ServerCheck, ApiError> {
        api.check_tool_server(&request.name).await
    }
}

/// The tools of every server a crew can use.
#[derive(Clone, Debug, Default, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct CrewTools {
    /// The crew's own `tools.servers` (as in its file, maybe not saved yet).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    #[ts(optional, as = "Option<std::collections::BTreeMap<String, crewgraph_engine::file::ServerFile>>")]
    pub servers: Option<Value>,
    /// Where the crew file is (as the editor names it): its program servers start in
    /// its folder, as in a run.
    #[serde(default)]
    #[ts(optional)]
    pub path: Option<String>,
}

impl Operation for CrewTools {
    type Request = Self;
    const NAME: &'static str = "crew_tools";
    const SUMMARY: &'static str = "The tools of every server a crew can use (its own and the app's), server by server, each \
                                   started if it is not running";
    const ROUTE: Option<Route> = Some(Route::post("/tools", "tools"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = Vec<ServerTools>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<ServerTools>>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<Vec<ServerTools>, ApiError> {
        api.crew_tools(request.servers, request.path.as_deref().map(std::path::Path::new)).await
    }
}
