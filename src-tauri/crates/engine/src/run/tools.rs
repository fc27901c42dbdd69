//! The tools an agent can call (DESIGN.md §6, `docs/tools.md`): the built-in
//! `current_time`, `calculator` and `http_get` (restricted to the crew's allow-list
//! of hosts), and the tools of the crew's MCP servers, which an agent lists as
//! `server.tool` (or a whole server as `server.*`). A call to a tool the agent does
//! not have, or one that fails, answers the agent with an error result; the run goes
//! on. Fetching is the host's job ([`HttpFetch`]), and so is talking to MCP servers
//! ([`ToolHost`]): the engine does no I/O itself.
//!
//! Models know a server's tools by a name of letters, digits, `_` and `-` (what the
//! providers accept): `files__read_text_file` for `files.read_text_file`. Events and
//! people see the dotted name.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::calculator::calculate;
use super::llm::ToolSpec;
use super::message::ToolCall;
use super::time::Clock;
use super::tool_host::{ServerTool, ToolHost, ToolProgress};
use crate::crew::{Agent, ToolServer, BUILTIN_TOOLS};
use crate::tool_server::server_entry;

/// The most characters of a web page handed back to an agent.
pub const MAX_FETCHED_CHARS: usize = 16_000;
/// The longest name a provider takes for a tool.
const MAX_TOOL_NAME: usize = 64;

/// Fetches a URL for `http_get` (the host implements it; the engine checks the
/// allow-list first).
#[async_trait]
pub trait HttpFetch: Send + Sync {
    /// The body of `url` as text, or why it could not be fetched.
    async fn get(&self, url: &str, cancel: &CancellationToken) -> Result<String, String>;
}

/// The tools a run can call.
#[derive(Clone)]
pub struct Tools {
    clock: Arc<dyn Clock>,
    http: Option<Arc<dyn HttpFetch>>,
    allowed_hosts: Vec<String>,
    servers: Arc<[ToolServer]>,
    host: Option<Arc<dyn ToolHost>>,
    /// The server tools offered to models, by the name the model knows them by.
    offered: Arc<Mutex<HashMap<String, Offered>>>,
}

/// A server's tool as offered to a model.
#[derive(Clone, Debug)]
struct Offered {
    /// The server's index.
    server: usize,
    /// The tool's own name on its server.
    tool: String,
    read_only: bool,
}

/// What a called tool is, for its policy.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolFacts {
    /// Its name for people: `server.tool`, or a built-in tool's.
    pub name: String,
    pub builtin: bool,
    /// Its server marks it read-only (`readOnlyHint`).
    pub read_only: bool,
}

/// Which tools of a server an agent's entry asks for.
enum Wanted<'a> {
    All,
    One(&'a str),
}

impl Tools {
    /// Tools using `clock` for the time and `http` (if any) for `http_get`, which may
    /// only reach `allowed_hosts`.
    pub fn new(clock: Arc<dyn Clock>, http: Option<Arc<dyn HttpFetch>>, allowed_hosts: Vec<String>) -> Self {
        Self { clock, http, allowed_hosts, servers: Arc::from(Vec::new()), host: None, offered: Arc::default() }
    }

    /// With the tools of `servers`, listed and called through `host` (None: agents
    /// that use them cannot run here).
    pub fn with_servers(mut self, servers: Vec<ToolServer>, host: Option<Arc<dyn ToolHost>>) -> Self {
        self.servers = Arc::from(servers);
        self.host = host;
        self
    }

    /// The specs of every tool `agent` lists, for its model: built-in ones, and those
    /// its servers offer now (asking them). Err says which server failed, or which
    /// tool a server does not have.
    pub async fn specs(&self, agent: &Agent, cancel: &CancellationToken) -> Result<Vec<ToolSpec>, String> {
        let mut specs: Vec<ToolSpec> = Vec::new();
        for entry in &agent.tools {
            if let Some(spec) = builtin_spec(entry) {
                specs.push(spec);
                continue;
            }
            // A name no server provides: validation warned about it; the model is not offered it.
            let Some((index, wanted)) = self.server_entry(entry) else { continue };
            let server = &self.servers[index];
            let host =
                self.host.as_ref().ok_or_else(|| format!("{} uses {entry}, but tools from MCP servers cannot be used here", agent.id))?;
            let listed = host.tools(server, cancel).await?;
            let chosen: Vec<ServerTool> = match wanted {
                Wanted::All => listed,
                Wanted::One(name) => match listed.iter().find(|tool| tool.name == name) {
                    Some(tool) => vec![tool.clone()],
                    None => return Err(no_such_tool(agent, entry, server, name, &listed)),
                },
            };
            for tool in chosen {
                let spec = self.offer(index, tool);
                if !specs.iter().any(|s| s.name == spec.name) {
                    specs.push(spec);
                }
            }
        }
        Ok(specs)
    }

    /// The name people see for a tool the model called: `server.tool` for a server's.
    pub fn display(&self, name: &str) -> String {
        self.facts(name).name
    }

    /// What a called name is: its name for people, built in or not, read-only or not.
    pub fn facts(&self, name: &str) -> ToolFacts {
        if BUILTIN_TOOLS.contains(&name) {
            return ToolFacts { name: name.to_owned(), builtin: true, read_only: false };
        }
        match self.resolve(name) {
            Some((index, tool)) => {
                let read_only = self
                    .offered
                    .lock()
                    .map(|offered| offered.values().any(|o| o.server == index && o.tool == tool && o.read_only))
                    .unwrap_or(false);
                ToolFacts { name: format!("{}.{tool}", self.servers[index].name), builtin: false, read_only }
            }
            None => ToolFacts { name: name.to_owned(), builtin: false, read_only: false },
        }
    }

    /// Runs one call of `agent`: Ok is the result, Err an error result for the agent
    /// (for a server's tool, also what the server said when it reported a failure).
    pub async fn call(
        &self,
        agent: &Agent,
        call: &ToolCall,
        progress: &(dyn Fn(ToolProgress) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        if BUILTIN_TOOLS.contains(&call.name.as_str()) {
            if !agent.tools.contains(&call.name) {
                return Err(unknown(agent, &call.name));
            }
            return match call.name.as_str() {
                "current_time" => Ok(self.clock.now().to_string()),
                "calculator" => calculate(argument(&call.arguments, "expression")?),
                _ => self.fetch(argument(&call.arguments, "url")?, cancel).await,
            };
        }
        let Some((index, tool)) = self.resolve(&call.name) else { return Err(unknown(agent, &call.name)) };
        let server = &self.servers[index];
        if !self.lists(agent, &call.name) {
            return Err(unknown(agent, &format!("{}.{tool}", server.name)));
        }
        let arguments = match &call.arguments {
            Value::Null => json!({}),
            Value::Object(_) => call.arguments.clone(),
            _ => return Err(format!("the arguments of {}.{tool} must be an object of named values", server.name)),
        };
        let host = self.host.as_ref().ok_or("tools from MCP servers cannot be used here")?;
        let output = host.call(server, &tool, &arguments, progress, cancel).await?;
        if output.is_error {
            Err(format!("{}.{tool} failed: {}", server.name, output.text))
        } else {
            Ok(output.text)
        }
    }

    /// Whether `agent` lists the tool a called name stands for (a call of a tool it
    /// does not have is answered with an error, never asked about).
    pub fn lists(&self, agent: &Agent, name: &str) -> bool {
        if BUILTIN_TOOLS.contains(&name) {
            return agent.tools.iter().any(|t| t == name);
        }
        let Some((index, tool)) = self.resolve(name) else { return false };
        agent.tools.iter().any(|entry| self.server_entry(entry).is_some_and(|(i, wanted)| i == index && wanted.covers(&tool)))
    }

    /// The server (index) and tools an agent's entry names: `server`, `server.*`,
    /// `server.tool` or `server/tool`.
    fn server_entry<'e>(&self, entry: &'e str) -> Option<(usize, Wanted<'e>)> {
        server_entry(&self.servers, entry).map(|(index, tool)| (index, tool.map_or(Wanted::All, Wanted::One)))
    }

    /// The server and tool a called name stands for: a name offered to the model, or
    /// `server.tool` / `server/tool` as a script writes it.
    fn resolve(&self, name: &str) -> Option<(usize, String)> {
        if let Some(found) = self.offered.lock().ok().and_then(|offered| offered.get(name).map(|o| (o.server, o.tool.clone()))) {
            return Some(found);
        }
        match self.server_entry(name)? {
            (index, Wanted::One(tool)) => Some((index, tool.to_owned())),
            (_, Wanted::All) => None,
        }
    }

    /// The spec of a server's tool under the name the model knows it by.
    fn offer(&self, index: usize, tool: ServerTool) -> ToolSpec {
        let name = model_name(&self.servers[index].name, &tool.name);
        if let Ok(mut offered) = self.offered.lock() {
            offered.insert(name.clone(), Offered { server: index, tool: tool.name.clone(), read_only: tool.read_only });
        }
        let parameters = if tool.parameters.is_object() { tool.parameters } else { json!({"type": "object", "properties": {}}) };
        ToolSpec { name, description: tool.description, parameters }
    }

    async fn fetch(&self, url: &str, cancel: &CancellationToken) -> Result<String, String> {
        let host = host_of(url).ok_or_else(|| format!("'{url}' is not an http:// or https:// address"))?;
        if !self.allowed_hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(&host)) {
            return Err(format!("host '{host}' is not on this crew's http_get allow-list"));
        }
        let http = self.http.as_ref().ok_or("http_get is not available here")?;
        let mut body = http.get(url, cancel).await?;
        if let Some((cut, _)) = body.char_indices().nth(MAX_FETCHED_CHARS) {
            body.truncate(cut);
            body.push_str("\n[… cut]");
        }
        Ok(body)
    }
}

impl Wanted<'_> {
    fn covers(&self, tool: &str) -> bool {
        match self {
            Wanted::All => true,
            Wanted::One(name) => *name == tool,
        }
    }
}

/// `server__tool` in the letters providers take, at most [`MAX_TOOL_NAME`] long.
fn model_name(server: &str, tool: &str) -> String {
    let name: String = format!("{server}__{tool}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(MAX_TOOL_NAME)
        .collect();
    name
}

fn unknown(agent: &Agent, name: &str) -> String {
    format!("unknown tool '{name}': agent '{}' has no such tool", agent.id)
}

fn no_such_tool(agent: &Agent, entry: &str, server: &ToolServer, name: &str, listed: &[ServerTool]) -> String {
    let mut names: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let has = if names.is_empty() { "it has none".to_owned() } else { format!("it has: {}", names.join(", ")) };
    format!("{} uses {entry}, but the tool server '{}' has no tool called '{name}' ({has})", agent.id, server.name)
}

fn builtin_spec(name: &str) -> Option<ToolSpec> {
    let (description, parameters) = match name {
        "current_time" => ("The current date and time (UTC, RFC 3339).", json!({"type": "object", "properties": {}})),
        "calculator" => (
            "Evaluates an arithmetic expression such as (1/2 + 1/4) * 3.",
            json!({"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}),
        ),
        "http_get" => (
            "Fetches a web page (only the hosts this crew allows).",
            json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}),
        ),
        _ => return None,
    };
    Some(ToolSpec { name: name.to_owned(), description: description.to_owned(), parameters })
}

fn argument<'a>(arguments: &'a Value, name: &str) -> Result<&'a str, String> {
    arguments.get(name).and_then(Value::as_str).ok_or_else(|| format!("missing the argument '{name}' (a string)"))
}

/// The host of an http(s) URL, lowercase, without port or credentials.
fn host_of(url: &str) -> Option<String> {
    let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host =
        if host_port.starts_with('[') { host_port.split(']').next()?.trim_start_matches('[') } else { host_port.split(':').next()? };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::AgentId;
    use crate::run::time::{SteppingClock, Timestamp};

    fn agent(tools: &[&str]) -> Agent {
        Agent { id: AgentId::from("a"), tools: tools.iter().map(|t| t.to_string()).collect(), ..Agent::default() }
    }

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall { id: "1".into(), name: name.into(), arguments }
    }

    struct Echo;
    #[async_trait]
    impl HttpFetch for Echo {
        async fn get(&self, url: &str, _: &CancellationToken) -> Result<String, String> {
            Ok(format!("page {url}"))
        }
    }

    fn tools() -> Tools {
        let clock = Arc::new(SteppingClock::new(Timestamp(1_795_000_000_000), 0));
        Tools::new(clock, Some(Arc::new(Echo)), vec!["example.org".into()])
    }

    #[tokio::test]
    async fn calculator_works_in_decimals() {
        let t = tools();
        let a = agent(&["calculator"]);
        let cancel = CancellationToken::new();
        assert_eq!(t.call(&a, &call("calculator", json!({"expression": "1/2 + 1/4"})), &|_| {}, &cancel).await, Ok("0.75".into()));
        assert_eq!(t.call(&a, &call("calculator", json!({"expression": "(2 + 3) * 4"})), &|_| {}, &cancel).await, Ok("20".into()));
        assert!(t.call(&a, &call("calculator", json!({"expression": "2 +"})), &|_| {}, &cancel).await.is_err());
        assert!(t.call(&a, &call("calculator", json!({})), &|_| {}, &cancel).await.unwrap_err().contains("expression"));
    }

    #[tokio::test]
    async fn current_time_comes_from_the_runs_clock() {
        let got = tools().call(&agent(&["current_time"]), &call("current_time", json!({})), &|_| {}, &CancellationToken::new()).await;
        assert_eq!(got, Ok("2026-11-18T11:06:40.000Z".into()));
    }

    #[tokio::test]
    async fn http_get_reaches_only_allowed_hosts() {
        let t = tools();
        let a = agent(&["http_get"]);
        let cancel = CancellationToken::new();
        assert_eq!(
            t.call(&a, &call("http_get", json!({"url": "https://Example.org/x"})), &|_| {}, &cancel).await,
            Ok("page https://Example.org/x".into())
        );
        let refused = t.call(&a, &call("http_get", json!({"url": "https://evil.example.org.attacker.net/"})), &|_| {}, &cancel).await;
        assert!(refused.unwrap_err().contains("not on this crew's http_get allow-list"));
        let sneaky = t.call(&a, &call("http_get", json!({"url": "http://example.org@attacker.net/"})), &|_| {}, &cancel).await;
        assert!(sneaky.unwrap_err().contains("attacker.net"));
        assert!(t.call(&a, &call("http_get", json!({"url": "file:///etc/passwd"})), &|_| {}, &cancel).await.is_err());
    }

    #[tokio::test]
    async fn tools_the_agent_does_not_have_answer_with_an_error() {
        let got = tools()
            .call(&agent(&["calculator"]), &call("http_get", json!({"url": "https://example.org"})), &|_| {}, &CancellationToken::new())
            .await;
        assert!(got.unwrap_err().starts_with("unknown tool 'http_get'"));
    }

    #[tokio::test]
    async fn specs_describe_the_agents_built_in_tools() {
        let specs = tools().specs(&agent(&["calculator", "mcp.search"]), &CancellationToken::new()).await.unwrap();
        assert_eq!(specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["calculator"]);
    }

    /// A server of two tools, answering from memory (the real servers are tested in
    /// `crewgraph-mcp`).
    struct TwoTools;
    #[async_trait]
    impl ToolHost for TwoTools {
        async fn tools(&self, _: &ToolServer, _: &CancellationToken) -> Result<Vec<ServerTool>, String> {
            let tool = |name: &str| ServerTool {
                name: name.into(),
                description: format!("{name}s"),
                parameters: json!({"type": "object"}),
                read_only: true,
            };
            Ok(vec![tool("read.file"), tool("write")])
        }
        async fn call(
            &self,
            server: &ToolServer,
            tool: &str,
            arguments: &Value,
            progress: &(dyn Fn(ToolProgress) + Send + Sync),
            _: &CancellationToken,
        ) -> Result<super::super::tool_host::ToolOutput, String> {
            progress(ToolProgress { progress: 1.0, total: None, message: None });
            Ok(super::super::tool_host::ToolOutput { text: format!("{}:{tool}:{arguments}", server.name), is_error: tool == "write" })
        }
    }

    fn with_server() -> Tools {
        tools().with_servers(vec![ToolServer::command("files", "true", &[])], Some(Arc::new(TwoTools)))
    }

    #[tokio::test]
    async fn a_servers_tools_are_offered_under_names_models_take_and_called_by_either_name() {
        let t = with_server();
        let cancel = CancellationToken::new();
        let whole = t.specs(&agent(&["files.*"]), &cancel).await.unwrap();
        assert_eq!(whole.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["files__read_file", "files__write"]);
        assert_eq!(t.display("files__read_file"), "files.read.file");
        let one = agent(&["files.read.file"]);
        assert_eq!(t.specs(&one, &cancel).await.unwrap().len(), 1);
        let heard = std::sync::atomic::AtomicU32::new(0);
        let progress = |_: ToolProgress| {
            heard.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        };
        let by_model = t.call(&one, &call("files__read_file", json!({"p": 1})), &progress, &cancel).await;
        assert_eq!(by_model, Ok(r#"files:read.file:{"p":1}"#.into()));
        let by_script = t.call(&one, &call("files.read.file", Value::Null), &progress, &cancel).await;
        assert_eq!(by_script, Ok("files:read.file:{}".into()));
        assert_eq!(heard.load(std::sync::atomic::Ordering::SeqCst), 2);
        // A tool of the server the agent did not list, arguments that are not an object,
        // and a result the server marks as an error.
        assert!(t.call(&one, &call("files__write", json!({})), &progress, &cancel).await.unwrap_err().contains("unknown tool"));
        assert!(t.call(&one, &call("files.read.file", json!([1])), &progress, &cancel).await.unwrap_err().contains("an object"));
        let failed = t.call(&agent(&["files"]), &call("files.write", json!({})), &progress, &cancel).await;
        assert_eq!(failed, Err("files.write failed: files:write:{}".into()));
    }

    #[tokio::test]
    async fn a_tool_the_server_does_not_have_is_said_with_the_ones_it_has() {
        let error = with_server().specs(&agent(&["files.red"]), &CancellationToken::new()).await.unwrap_err();
        assert_eq!(error, "a uses files.red, but the tool server 'files' has no tool called 'red' (it has: read.file, write)");
        let nowhere = tools().with_servers(vec![ToolServer::command("files", "true", &[])], None);
        let error = nowhere.specs(&agent(&["files.*"]), &CancellationToken::new()).await.unwrap_err();
        assert!(error.contains("cannot be used here"), "{error}");
    }
}
