//! The built-in tools (DESIGN.md §6): `current_time`, `calculator`, and `http_get`
//! restricted to the crew's allow-list of hosts. A call to a tool the agent does not
//! have, or one that fails, answers the agent with an error result; the run goes on.
//! Fetching is the host's job ([`HttpFetch`]): the engine does no I/O itself.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::calculator::calculate;
use super::llm::ToolSpec;
use super::message::ToolCall;
use super::time::Clock;
use crate::crew::Agent;

/// The most characters of a web page handed back to an agent.
pub const MAX_FETCHED_CHARS: usize = 16_000;

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
}

impl Tools {
    /// Tools using `clock` for the time and `http` (if any) for `http_get`, which may
    /// only reach `allowed_hosts`.
    pub fn new(clock: Arc<dyn Clock>, http: Option<Arc<dyn HttpFetch>>, allowed_hosts: Vec<String>) -> Self {
        Self { clock, http, allowed_hosts }
    }

    /// The specs of the built-in tools an agent lists, for its model.
    pub fn specs(agent: &Agent) -> Vec<ToolSpec> {
        agent.tools.iter().filter_map(|name| spec(name)).collect()
    }

    /// Runs one call of `agent`: Ok is the result, Err an error result for the agent.
    pub async fn call(&self, agent: &Agent, call: &ToolCall, cancel: &CancellationToken) -> Result<String, String> {
        if !agent.tools.contains(&call.name) {
            return Err(format!("unknown tool '{}': agent '{}' has no such tool", call.name, agent.id));
        }
        match call.name.as_str() {
            "current_time" => Ok(self.clock.now().to_string()),
            "calculator" => calculate(argument(&call.arguments, "expression")?),
            "http_get" => self.fetch(argument(&call.arguments, "url")?, cancel).await,
            other => Err(format!("tool '{other}' is not available (tools from MCP servers are not supported yet)")),
        }
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

fn spec(name: &str) -> Option<ToolSpec> {
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
        assert_eq!(t.call(&a, &call("calculator", json!({"expression": "1/2 + 1/4"})), &cancel).await, Ok("0.75".into()));
        assert_eq!(t.call(&a, &call("calculator", json!({"expression": "(2 + 3) * 4"})), &cancel).await, Ok("20".into()));
        assert!(t.call(&a, &call("calculator", json!({"expression": "2 +"})), &cancel).await.is_err());
        assert!(t.call(&a, &call("calculator", json!({})), &cancel).await.unwrap_err().contains("expression"));
    }

    #[tokio::test]
    async fn current_time_comes_from_the_runs_clock() {
        let got = tools().call(&agent(&["current_time"]), &call("current_time", json!({})), &CancellationToken::new()).await;
        assert_eq!(got, Ok("2026-11-18T11:06:40.000Z".into()));
    }

    #[tokio::test]
    async fn http_get_reaches_only_allowed_hosts() {
        let t = tools();
        let a = agent(&["http_get"]);
        let cancel = CancellationToken::new();
        assert_eq!(
            t.call(&a, &call("http_get", json!({"url": "https://Example.org/x"})), &cancel).await,
            Ok("page https://Example.org/x".into())
        );
        let refused = t.call(&a, &call("http_get", json!({"url": "https://evil.example.org.attacker.net/"})), &cancel).await;
        assert!(refused.unwrap_err().contains("not on this crew's http_get allow-list"));
        let sneaky = t.call(&a, &call("http_get", json!({"url": "http://example.org@attacker.net/"})), &cancel).await;
        assert!(sneaky.unwrap_err().contains("attacker.net"));
        assert!(t.call(&a, &call("http_get", json!({"url": "file:///etc/passwd"})), &cancel).await.is_err());
    }

    #[tokio::test]
    async fn tools_the_agent_does_not_have_answer_with_an_error() {
        let got = tools()
            .call(&agent(&["calculator"]), &call("http_get", json!({"url": "https://example.org"})), &CancellationToken::new())
            .await;
        assert!(got.unwrap_err().starts_with("unknown tool 'http_get'"));
    }

    #[test]
    fn specs_describe_the_agents_built_in_tools() {
        let specs = Tools::specs(&agent(&["calculator", "mcp.search"]));
        assert_eq!(specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["calculator"]);
    }
}
