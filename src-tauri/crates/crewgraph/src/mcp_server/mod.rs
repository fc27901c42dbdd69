//! # Crews as MCP tools: `crewgraph mcp` (stdio) and `/mcp` on `crewgraph serve`
//!
//! Claude Desktop, Cursor, VS Code — or another crew through Crewgraph's own MCP
//! client — call a crew as a tool. Each valid crew of the crews folder is one tool
//! ([`tools::crew_tools`]): input `{input, model?}`, output the final answer (the
//! last agent's reply), the run id and the run's status, as text and as structured
//! content. While it runs, each handoff is one progress notification ("Teacher →
//! Student because \[QUESTION\] (exact)") when the client asked for progress; a
//! cancelled request stops the run (it ends `cancelled`, its events kept). A run that
//! waits for a person answers with what it waits for and its run id; the tool
//! `resume_run {run_id, input}` goes on with it.
//!
//! The runs are ordinary runs of the host ([`Api::call_crew`]): stored, listed in the
//! window and by `GET /runs`, watchable live. The handler only reads arguments and
//! shapes answers.
//!
//! Transports, both from the official SDK (`rmcp`): stdio ([`serve_stdio`]; stdout
//! carries only the protocol, messages go to stderr) and Streamable HTTP
//! ([`http_service`], mounted at `/mcp` behind the server's token).

pub mod tools;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::api::{Api, CallNews, CallOutcome, GoOn};
use crewgraph_engine::RunId;

use tools::RESUME_RUN;

/// The MCP server of one crews folder.
#[derive(Clone)]
pub struct CrewTools {
    api: Api,
    /// The model each paused run of this server was called with, for `resume_run`
    /// to go on alike when it names none (kept only while the run waits).
    models: Arc<Mutex<HashMap<String, Option<String>>>>,
}

impl CrewTools {
    /// The crews of `api`'s folder as tools, their runs in `api`'s store.
    pub fn new(api: Api) -> Self {
        Self { api, models: Arc::default() }
    }

    async fn call(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> CallToolResult {
        let arguments = request.arguments.unwrap_or_default();
        let progress = Progress::new(&context);
        let outcome = if request.name == RESUME_RUN {
            self.resume(&arguments, &progress, &context.ct).await
        } else {
            self.run_crew(&request.name, &arguments, &progress, &context.ct).await
        };
        progress.finish().await;
        match outcome {
            Ok(outcome) => answer(&outcome),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        }
    }

    async fn run_crew(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        progress: &Progress,
        cancel: &CancellationToken,
    ) -> Result<CallOutcome, String> {
        let path = self.api.called_crew(name).map_err(|e| e.message)?;
        let input = text_argument(arguments, "input")?.ok_or("give the crew something to work on: 'input' is missing")?;
        let model = text_argument(arguments, "model")?;
        let options = self.api.call_options(&path, model.as_deref()).map_err(|e| e.message)?;
        let outcome = self.api.call_crew(&path, &input, options, |news| progress.tell(news), cancel).await.map_err(|e| e.message)?;
        self.remember(&outcome, model);
        Ok(outcome)
    }

    async fn resume(&self, arguments: &Map<String, Value>, progress: &Progress, cancel: &CancellationToken) -> Result<CallOutcome, String> {
        let run_id = text_argument(arguments, "run_id")?.ok_or("say which run to go on with: 'run_id' is missing")?;
        let input = text_argument(arguments, "input")?
            .filter(|i| !i.trim().is_empty())
            .ok_or("give the waiting agent your answer: 'input' is missing")?;
        let remembered = self.models.lock().ok().and_then(|m| m.get(&run_id).cloned()).flatten();
        let model = text_argument(arguments, "model")?.or(remembered);
        let id = RunId::from(run_id.as_str());
        let outcome =
            self.api.call_resume(&id, &input, model.as_deref(), |news| progress.tell(news), cancel).await.map_err(|e| e.message)?;
        self.remember(&outcome, model);
        Ok(outcome)
    }

    /// Keeps the model of a run that waits for a person; forgets it once it goes on.
    fn remember(&self, outcome: &CallOutcome, model: Option<String>) {
        let Ok(mut models) = self.models.lock() else { return };
        if outcome.waiting.is_some() {
            models.insert(outcome.run_id.clone(), model);
        } else {
            models.remove(&outcome.run_id);
        }
    }
}

/// The tool's answer for an outcome: the words, and the outcome as structured
/// content; an error when the run failed (not when it waits for a person).
fn answer(outcome: &CallOutcome) -> CallToolResult {
    let structured = serde_json::to_value(outcome).unwrap_or(Value::Null);
    let mut result = if outcome.succeeded() || outcome.waiting.is_some() {
        CallToolResult::success(vec![ContentBlock::text(outcome.in_words(GoOn::ResumeTool))])
    } else {
        CallToolResult::error(vec![ContentBlock::text(outcome.in_words(GoOn::ResumeTool))])
    };
    result.structured_content = Some(structured);
    result
}

/// A string argument, absent, or why it is not a string.
fn text_argument(arguments: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(format!("'{name}' must be text, not {}", kind_of(other))),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Progress notifications of one call, sent in order by a task of their own so the
/// run never waits for the client; [`Progress::finish`] waits until they are sent,
/// so none arrives after the call's answer.
struct Progress(Option<(tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam>, ProgressToken, tokio::task::JoinHandle<()>)>);

impl Progress {
    fn new(context: &RequestContext<RoleServer>) -> Self {
        let Some(token) = context.meta.get_progress_token() else { return Self(None) };
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
        let peer = context.peer.clone();
        let task = tokio::spawn(async move {
            while let Some(note) = receiver.recv().await {
                if peer.notify_progress(note).await.is_err() {
                    break;
                }
            }
        });
        Self(Some((sender, token, task)))
    }

    fn tell(&self, news: CallNews) {
        let (Some((sender, token, _)), CallNews::Handoff { words, count }) = (&self.0, news) else { return };
        let _ = sender.send(ProgressNotificationParam::new(token.clone(), f64::from(count)).with_message(words));
    }

    async fn finish(self) {
        if let Some((sender, _, task)) = self.0 {
            drop(sender);
            let _ = task.await;
        }
    }
}

impl ServerHandler for CrewTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("crewgraph", env!("CARGO_PKG_VERSION")).with_title("Crewgraph crews"))
            .with_instructions(
                "Each tool runs one crew of LLM agents designed in Crewgraph on your input and answers with the final \
                 agent's reply. A crew that waits for a person answers with a run_id: go on with resume_run.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let api = self.api.clone();
        let crews = tokio::task::spawn_blocking(move || tools::crew_tools(&api)).await.unwrap_or_default();
        let mut listed: Vec<_> = crews.into_iter().map(|c| c.tool).collect();
        listed.push(tools::resume_tool());
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        Ok(self.call(request, context).await.into())
    }
}

/// Serves `api`'s crews over stdin/stdout until the client closes them.
pub async fn serve_stdio(api: Api) -> Result<(), String> {
    let running = CrewTools::new(api)
        .serve(rmcp::transport::io::stdio())
        .await
        .map_err(|e| format!("the MCP client did not start a session: {e}"))?;
    running.waiting().await.map(|_| ()).map_err(|e| format!("the MCP session failed: {e}"))
}

/// `/mcp` of a server: Streamable HTTP, one session per client. `any_host`: accept
/// any `Host` header (a server that wants a token); otherwise only loopback names,
/// against DNS rebinding.
pub fn http_service(api: Api, any_host: bool, stop: CancellationToken) -> StreamableHttpService<CrewTools, LocalSessionManager> {
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop;
    if any_host {
        config = config.disable_allowed_hosts();
    }
    let tools = CrewTools::new(api);
    StreamableHttpService::new(move || Ok(tools.clone()), Arc::new(LocalSessionManager::default()), config)
}
