//! PyPI's `mcp-server-time`: a second implementation of MCP, in Python.

use crewgraph_engine::run::ToolHost;
use crewgraph_mcp::McpHost;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::{logs, time};

#[tokio::test]
async fn the_python_time_server_tells_the_time_and_refuses_a_zone_that_is_not_one() {
    let logs = logs();
    let host = McpHost::new(logs.path());
    let server = time();
    let cancel = CancellationToken::new();
    let tools = host.tools(&server, &cancel).await.expect("the tools");
    assert!(tools.iter().any(|t| t.name == "get_current_time" && t.read_only), "{tools:?}");
    let now = host.call(&server, "get_current_time", &json!({"timezone": "Europe/Paris"}), &|_| {}, &cancel).await.unwrap();
    assert!(now.text.contains("Europe/Paris") && now.text.contains("datetime"), "{}", now.text);
    let nowhere = host.call(&server, "get_current_time", &json!({"timezone": "Mars/Olympus"}), &|_| {}, &cancel).await;
    match nowhere {
        Ok(out) => assert!(out.is_error, "{}", out.text),
        Err(error) => assert!(error.starts_with("the tool server 'clock' "), "{error}"),
    }
}
