//! Every operation of the API, in one list ([`visit`]), and what is made from it:
//! the window's one command ([`call`]: an operation's name and its request as JSON),
//! the HTTP routes and their OpenAPI operations (`crate::serve::routes`), and the
//! UI's typed client table ([`typescript`], written to `ui/src/bindings/operations.ts`
//! by `cargo test`).
//!
//! To add an operation: declare it beside its kind (its [`Operation`] impl, and its
//! request type unless it takes a shared one — [`Nothing`], [`WhichCrew`],
//! [`WhichRun`], [`WhichModel`]; see
//! [`super::operation`]), and name it in [`visit`].
//! `docs/architecture.md` says which suite then proves it.

mod agents;
mod crews;
mod editor;
mod gatekeeper;
mod import;
mod models;
mod requests;
mod revisions;
mod run_request;
mod runs;
mod testing;
mod tools;
mod traces;

use std::any::TypeId;
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use futures_util::future::BoxFuture;
use serde_json::Value;
use ts_rs::TS;

pub use agents::{AddAgent, ListAgents, RemoveAgent};
pub use crews::{CrewScripts, CrewsFolder, ExplainReply, ListCrews, MatchSignal, OpenCrew, RouteQuery, ValidateCrew};
pub use editor::{AgentInstructions, CheckSignalName, CrewDisk, CrewYaml, EditCrew, ExportCrew, RecentCrews, TryAgent};
pub use gatekeeper::KeywordGatekeeper;
pub use import::{ImportCrewAi, ProjectFile, ReadCrewAiProject};
pub use models::{
    CheckModel, DiscoverModels, ListModels, ModelServers, PutModel, RemoveApiKey, RemoveModel, SetApiKey, SetDefaultModel, SetModelServers,
};
pub use requests::{Nothing, WhichCrew, WhichModel, WhichRun};
pub use revisions::{CompareRevisions, DiffRevisions, ListRevisions, OpenRevision, WhichRevision};
pub use run_request::{ApproveToolCall, ForkRun, Replies, ResumeRun, StartRun};
pub use runs::{
    CancelRun, CheckRecording, ExportRun, GetRun, ImportRecording, ListLiveRuns, ListRuns, RunAccepted, RunDetail, RunEvents, RunRecording,
    StepContextOf, StepRun, TypeReply, WhichStep,
};
pub use testing::TestCrew;
pub use tools::{CheckToolServer, CrewTools, ImportToolServers, ListToolServers, PutToolServer, RemoveToolServer, WhichToolServer};
pub use traces::{SetTraces, Traces};

use super::operation::Operation;
use super::{Api, ApiError, ApiErrorCode, CheckCrew, SaveCrew};
use crewgraph_engine::words::plain_message;

/// Something done once per operation.
pub trait Visitor {
    fn visit<O: Operation>(&mut self);
}

/// Hands `visitor` every operation, in the order the OpenAPI document and the
/// TypeScript table list them.
pub fn visit(visitor: &mut impl Visitor) {
    // Crews
    visitor.visit::<ListCrews>();
    visitor.visit::<OpenCrew>();
    visitor.visit::<ValidateCrew>();
    visitor.visit::<RouteQuery>();
    visitor.visit::<CrewScripts>();
    visitor.visit::<CrewsFolder>();
    visitor.visit::<MatchSignal>();
    visitor.visit::<ExplainReply>();
    visitor.visit::<TestCrew>();
    visitor.visit::<ImportCrewAi>();
    visitor.visit::<ReadCrewAiProject>();
    // The editor
    visitor.visit::<EditCrew>();
    visitor.visit::<CrewDisk>();
    visitor.visit::<CheckCrew>();
    visitor.visit::<SaveCrew>();
    visitor.visit::<CrewYaml>();
    visitor.visit::<AgentInstructions>();
    visitor.visit::<CheckSignalName>();
    visitor.visit::<RecentCrews>();
    visitor.visit::<ExportCrew>();
    visitor.visit::<TryAgent>();
    // Revisions
    visitor.visit::<ListRevisions>();
    visitor.visit::<DiffRevisions>();
    visitor.visit::<OpenRevision>();
    // Runtime agents
    visitor.visit::<ListAgents>();
    visitor.visit::<AddAgent>();
    visitor.visit::<RemoveAgent>();
    // Models
    visitor.visit::<ListModels>();
    visitor.visit::<PutModel>();
    visitor.visit::<RemoveModel>();
    visitor.visit::<SetDefaultModel>();
    visitor.visit::<CheckModel>();
    visitor.visit::<DiscoverModels>();
    visitor.visit::<ModelServers>();
    visitor.visit::<SetModelServers>();
    visitor.visit::<SetApiKey>();
    visitor.visit::<RemoveApiKey>();
    // Tool servers
    visitor.visit::<ListToolServers>();
    visitor.visit::<PutToolServer>();
    visitor.visit::<RemoveToolServer>();
    visitor.visit::<ImportToolServers>();
    visitor.visit::<CheckToolServer>();
    visitor.visit::<CrewTools>();
    // Traces
    visitor.visit::<Traces>();
    visitor.visit::<SetTraces>();
    // Runs
    visitor.visit::<ListRuns>();
    visitor.visit::<StartRun>();
    visitor.visit::<GetRun>();
    visitor.visit::<ForkRun>();
    visitor.visit::<StepContextOf>();
    visitor.visit::<ResumeRun>();
    visitor.visit::<ApproveToolCall>();
    visitor.visit::<CancelRun>();
    visitor.visit::<TypeReply>();
    visitor.visit::<StepRun>();
    visitor.visit::<RunRecording>();
    visitor.visit::<CheckRecording>();
    visitor.visit::<ExportRun>();
    visitor.visit::<ImportRecording>();
    visitor.visit::<RunEvents>();
    visitor.visit::<ListLiveRuns>();
    // Routing
    visitor.visit::<KeywordGatekeeper>();
}

type Handler = fn(Api, Value) -> BoxFuture<'static, Result<Value, ApiError>>;

/// Does operation `name` with `request` (its request type as JSON) and answers its
/// answer as JSON: the window's one command.
pub async fn call(api: &Api, name: &str, request: Value) -> Result<Value, ApiError> {
    static HANDLERS: OnceLock<HashMap<&'static str, Handler>> = OnceLock::new();
    let handlers = HANDLERS.get_or_init(|| {
        struct Table(HashMap<&'static str, Handler>);
        impl Visitor for Table {
            fn visit<O: Operation>(&mut self) {
                self.0.insert(O::NAME, handle::<O>);
            }
        }
        let mut table = Table(HashMap::new());
        visit(&mut table);
        table.0
    });
    let handler = handlers.get(name).ok_or_else(|| {
        ApiError::new(ApiErrorCode::InvalidInput, format!("there is no operation '{name}' (this window and its engine differ)"))
    })?;
    handler(api.clone(), request).await
}

fn handle<O: Operation>(api: Api, request: Value) -> BoxFuture<'static, Result<Value, ApiError>> {
    Box::pin(async move {
        let request = read_request::<O>(request)?;
        let answer = O::call(request, &api).await?;
        serde_json::to_value(answer).map_err(|e| ApiError::new(ApiErrorCode::Io, format!("the answer of {} does not encode: {e}", O::NAME)))
    })
}

/// `O`'s request from JSON, or what is wrong with it in words.
pub fn read_request<O: Operation>(request: Value) -> Result<O::Request, ApiError> {
    serde_json::from_value(request).map_err(|error| {
        // serde's words name Rust types ("struct OpenCrew"): said plainly.
        ApiError::new(
            ApiErrorCode::InvalidInput,
            format!("the request is not what this operation takes: {}", plain_message(&error.to_string())),
        )
    })
}

/// The UI's typed table of every operation (`ui/src/bindings/operations.ts`): what
/// each takes, answers and may fail with, and its HTTP route.
pub fn typescript() -> String {
    struct Writer {
        config: ts_rs::Config,
        imports: BTreeSet<String>,
        types: String,
        routes: String,
    }
    impl Visitor for Writer {
        fn visit<O: Operation>(&mut self) {
            let request = <O::Request as TS>::name(&self.config);
            self.imports.insert(request.clone());
            let answer = if TypeId::of::<O::Answer>() == TypeId::of::<()>() {
                "void".to_owned()
            } else {
                let answer = <O::Answer as TS>::name(&self.config);
                // The types the answer's expression names (each in its own file of the
                // bindings folder); not TypeScript's own (`Array`, `boolean` …).
                let named = answer.split(|c: char| !c.is_alphanumeric() && c != '_');
                self.imports.extend(named.filter(|word| word.starts_with(char::is_uppercase) && *word != "Array").map(str::to_owned));
                answer
            };
            let mut codes: Vec<ApiErrorCode> = O::ERRORS.to_vec();
            codes.push(ApiErrorCode::InvalidInput);
            let mut errors: Vec<String> = codes.iter().map(|code| format!("\"{}\"", code.as_str())).collect();
            errors.dedup();
            self.types.push_str(&format!(
                "  /** {} */\n  {}: {{ request: {request}; answer: {answer}; errors: {} }};\n",
                O::SUMMARY,
                O::NAME,
                errors.join(" | ")
            ));
            let route = match O::ROUTE {
                Some(route) => {
                    format!("{{ method: \"{}\", path: \"{}\", status: {} }}", route.method.as_str(), route.path, route.status)
                }
                None => "null".to_owned(),
            };
            self.routes.push_str(&format!("  {}: {route},\n", O::NAME));
        }
    }
    let mut writer = Writer { config: ts_rs::Config::default(), imports: BTreeSet::new(), types: String::new(), routes: String::new() };
    visit(&mut writer);
    let imports: String = writer.imports.iter().map(|name| format!("import type {{ {name} }} from \"./{name}\";\n")).collect();
    format!(
        "// Generated from the operation table (src-tauri/crates/crewgraph/src/api/operations/mod.rs) by\n\
         // `cargo test -p crewgraph`. Do not edit this file by hand.\n\
         {imports}\n\
         /** Every operation: what it takes, what it answers, the error codes it may answer. */\n\
         export type Operations = {{\n{}}};\n\n\
         /** An operation's name. */\n\
         export type OperationName = keyof Operations;\n\n\
         /** How an operation is reached over HTTP: `{{field}}`s of its path come from its request. */\n\
         export type Route = {{ method: \"GET\" | \"POST\" | \"PUT\" | \"DELETE\"; path: string; status: number }};\n\n\
         /** Each operation's HTTP route (null: the window only). */\n\
         export const ROUTES: {{ readonly [K in OperationName]: Route | null }} = {{\n{}}};\n",
        writer.types, writer.routes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_have_one_name_each_and_their_routes_name_request_fields() {
        struct Check(BTreeSet<&'static str>, BTreeSet<(&'static str, &'static str)>);
        impl Visitor for Check {
            fn visit<O: Operation>(&mut self) {
                assert!(self.0.insert(O::NAME), "two operations are named {}", O::NAME);
                let Some(route) = O::ROUTE else { return };
                assert!(self.1.insert((route.method.as_str(), route.path)), "two operations are {} {}", route.method.as_str(), route.path);
                let fields = <O::Request as TS>::inline(&ts_rs::Config::default());
                for field in route.fields() {
                    assert!(
                        fields.contains(&format!("{field}:")) || fields.contains(&format!("\"{field}\":")),
                        "{}: no field {field} in {fields}",
                        O::NAME
                    );
                }
            }
        }
        let mut check = Check(BTreeSet::new(), BTreeSet::new());
        visit(&mut check);
        assert!(check.0.len() >= 37, "{}", check.0.len());
    }

    /// Writes `ui/src/bindings/operations.ts`, as ts-rs writes the types it names
    /// (`make bindings-check` fails when the committed copy differs).
    #[test]
    fn export_the_typescript_operation_table() {
        let Some(dir) = std::env::var_os("TS_RS_EXPORT_DIR") else { return };
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").join(dir).join("operations.ts");
        let text = typescript();
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).unwrap();
        }
    }
}
