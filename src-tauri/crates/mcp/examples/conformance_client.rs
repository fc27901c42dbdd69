//! Crewgraph's MCP client as the official conformance suite drives it
//! (`scripts/mcp-conformance.sh`, docs/testing.md): `conformance_client URL` connects
//! to the server at URL over Streamable HTTP through the same `McpHost` runs use,
//! lists its tools, and calls each one with arguments made from its input schema (a
//! number for a number, text for a string …), as an agent would. The scenario's name
//! (`MCP_CONFORMANCE_SCENARIO`) is only printed: what the client does is the same
//! for all of them.

use std::time::Duration;

use crewgraph_engine::crew::{ServerTransport, ToolServer};
use crewgraph_engine::run::ToolHost;
use crewgraph_mcp::McpHost;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let Some(url) = std::env::args().next_back().filter(|a| a.starts_with("http")) else {
        eprintln!("usage: conformance_client URL");
        return std::process::ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    eprintln!("conformance_client: scenario '{scenario}' at {url}");
    let server = ToolServer {
        name: "conformance".into(),
        transport: ServerTransport::Http { url, headers: Vec::new() },
        timeout: Duration::from_secs(20),
    };
    let logs = std::env::temp_dir().join("crewgraph-conformance-logs");
    let host = McpHost::new(logs);
    let cancel = CancellationToken::new();
    let tools = match host.tools(&server, &cancel).await {
        Ok(tools) => tools,
        Err(error) => {
            eprintln!("conformance_client: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for tool in &tools {
        let arguments = arguments_for(&tool.parameters);
        match host.call(&server, &tool.name, &arguments, &|p| eprintln!("progress {}/{:?}", p.progress, p.total), &cancel).await {
            Ok(out) => println!("{} {} -> {}{}", tool.name, arguments, if out.is_error { "error: " } else { "" }, out.text),
            Err(error) => {
                failed = true;
                eprintln!("conformance_client: {} failed: {error}", tool.name);
            }
        }
    }
    host.stop().await;
    if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// Arguments of the shape `schema` gives: each required property a value of its type.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).map_or_else(Vec::new, |r| r.iter().filter_map(Value::as_str).collect());
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            if !required.contains(&name.as_str()) {
                continue;
            }
            let value = match property.get("type").and_then(Value::as_str) {
                Some("number") | Some("integer") => json!(2),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("conformance"),
            };
            arguments.insert(name.clone(), value);
        }
    }
    Value::Object(arguments)
}
