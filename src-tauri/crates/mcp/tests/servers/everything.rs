//! npm's `server-everything`: tools and their schemas, calls, progress, cancellation,
//! timeouts, structured content and images, a secret in its environment, and the
//! same over Streamable HTTP with a bearer token.

use std::time::{Duration, Instant};

use crewgraph_engine::crew::{ServerTransport, ServerValue, ToolServer, DEFAULT_TOOL_TIMEOUT};
use crewgraph_engine::run::ToolHost;
use crewgraph_mcp::McpHost;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::{everything, free_port, logs, until, with_env, with_timeout, Heard};

#[tokio::test]
async fn lists_its_tools_with_their_schemas_and_answers_a_call() {
    let logs = logs();
    let host = McpHost::new(logs.path());
    let cancel = CancellationToken::new();
    let server = everything();
    let tools = host.tools(&server, &cancel).await.expect("the tools");
    let echo = tools.iter().find(|t| t.name == "echo").expect("an echo tool");
    assert!(!echo.description.is_empty());
    assert_eq!(echo.parameters["properties"]["message"]["type"], "string", "{}", echo.parameters);
    let long = tools.iter().find(|t| t.name == "trigger-long-running-operation").expect("a long operation");
    assert!(long.read_only, "annotated readOnlyHint: true");
    let out = host.call(&server, "echo", &json!({"message": "hello «tools»"}), &|_| {}, &cancel).await.expect("an answer");
    assert_eq!(out.text, "Echo: hello «tools»");
    assert!(!out.is_error);
    // A second listing and call reuse the server started by the first.
    assert_eq!(host.tools(&server, &cancel).await.unwrap().len(), tools.len());
    let sum = host.call(&server, "get-sum", &json!({"a": 2, "b": 40}), &|_| {}, &cancel).await.unwrap();
    assert!(sum.text.contains("42"), "{}", sum.text);
}

#[tokio::test]
async fn structured_content_is_read_and_an_image_is_named_not_inlined() {
    let logs = logs();
    let host = McpHost::new(logs.path());
    let cancel = CancellationToken::new();
    let server = everything();
    let image = host.call(&server, "get-tiny-image", &json!({}), &|_| {}, &cancel).await.unwrap();
    assert!(image.text.contains("[an image, image/png,"), "{}", image.text);
    assert!(image.text.len() < 2_000, "no base64 in what the agent reads: {}", image.text);
    let structured = host.call(&server, "get-structured-content", &json!({"location": "New York"}), &|_| {}, &cancel).await.unwrap();
    assert!(structured.text.contains("temperature"), "{}", structured.text);
}

#[tokio::test]
async fn a_long_call_reports_progress_as_it_goes() {
    let logs = logs();
    let host = McpHost::new(logs.path());
    let heard = Heard::default();
    let args = json!({"duration": 1, "steps": 3});
    let out = host.call(&everything(), "trigger-long-running-operation", &args, &heard.hear(), &CancellationToken::new()).await;
    assert!(out.unwrap().text.contains("completed"));
    let progress = heard.0.lock().unwrap().clone();
    assert_eq!(progress.iter().map(|p| p.progress).collect::<Vec<_>>(), [1.0, 2.0, 3.0]);
    assert!(progress.iter().all(|p| p.total == Some(3.0)));
}

#[tokio::test]
async fn cancelling_a_call_returns_at_once_and_the_server_goes_on_serving() {
    let logs = logs();
    let host = std::sync::Arc::new(McpHost::new(logs.path()));
    let server = everything();
    let cancel = CancellationToken::new();
    let heard = Heard::default();
    let call = {
        let (host, server, cancel, hear) = (host.clone(), server.clone(), cancel.clone(), heard.hear());
        tokio::spawn(async move {
            let args = json!({"duration": 300, "steps": 300});
            host.call(&server, "trigger-long-running-operation", &args, &hear, &cancel).await
        })
    };
    until("the first progress of the long call", || heard.count() > 0).await;
    let stopped = Instant::now();
    cancel.cancel();
    let result = call.await.unwrap();
    // (A bound for a busy machine: far under the call's 300 s, and its 60 s timeout.)
    assert!(stopped.elapsed() < Duration::from_secs(30), "cancelled in {:?}", stopped.elapsed());
    assert_eq!(result.unwrap_err(), "the tool server 'everything' was stopped: the run was stopped");
    let again = host.call(&server, "echo", &json!({"message": "still here"}), &|_| {}, &CancellationToken::new()).await;
    assert_eq!(again.unwrap().text, "Echo: still here");
}

#[tokio::test]
async fn a_call_longer_than_the_servers_timeout_is_said_in_words() {
    let logs = logs();
    let host = McpHost::new(logs.path());
    let server = with_timeout(everything(), Duration::from_secs(2));
    let args = json!({"duration": 30, "steps": 1});
    let error = host.call(&server, "trigger-long-running-operation", &args, &|_| {}, &CancellationToken::new()).await.unwrap_err();
    assert_eq!(error, "the tool server 'everything' did not answer within 2s");
    assert_eq!(DEFAULT_TOOL_TIMEOUT, Duration::from_secs(60));
}

#[tokio::test]
async fn a_secret_in_its_environment_reaches_it_and_comes_back_hidden() {
    let var = "CREWGRAPH_MCP_TEST_EVERYTHING_TOKEN_71c";
    std::env::set_var(var, "tok-3c1f-secret-value");
    let logs = logs();
    let host = McpHost::new(logs.path());
    let server = with_env(everything(), "SERVICE_TOKEN", ServerValue::Key { name: var.into(), prefix: String::new() });
    let out = host.call(&server, "get-env", &json!({}), &|_| {}, &CancellationToken::new()).await.unwrap();
    assert!(out.text.contains("SERVICE_TOKEN"), "the server has the variable: {}", out.text);
    assert!(out.text.contains("[hidden]"), "{}", out.text);
    assert!(!out.text.contains("tok-3c1f-secret-value"), "{}", out.text);
    assert!(!out.text.contains(var), "Crewgraph's own environment is not passed on: {}", out.text);
    std::env::remove_var(var);
}

#[tokio::test]
async fn over_streamable_http_with_a_bearer_token_from_a_key() {
    let port = free_port();
    let script = crate::support::root().join(".tools/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.exists(), "run scripts/install-mcp-servers.sh");
    let mut child = tokio::process::Command::new("node")
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    until("the HTTP server to listen", || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()).await;
    let var = "CREWGRAPH_MCP_TEST_HTTP_TOKEN_2b9";
    std::env::set_var(var, "bearer-secret-9d2");
    let server = ToolServer {
        name: "web".into(),
        transport: ServerTransport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: vec![
                ("Authorization".into(), ServerValue::Key { name: var.into(), prefix: "Bearer ".into() }),
                ("X-Crew".into(), ServerValue::Text("tests".into())),
            ],
        },
        timeout: DEFAULT_TOOL_TIMEOUT,
    };
    let logs = logs();
    let host = McpHost::new(logs.path());
    let cancel = CancellationToken::new();
    let tools = host.tools(&server, &cancel).await.expect("the tools over HTTP");
    assert!(tools.iter().any(|t| t.name == "echo"));
    let heard = Heard::default();
    let out = host.call(&server, "trigger-long-running-operation", &json!({"duration": 1, "steps": 2}), &heard.hear(), &cancel).await;
    assert!(out.unwrap().text.contains("completed"));
    assert_eq!(heard.count(), 2, "progress over HTTP too");
    host.stop().await;
    let _ = child.kill().await;
    std::env::remove_var(var);
}
