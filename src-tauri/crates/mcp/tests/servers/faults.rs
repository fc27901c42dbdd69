//! What a broken server does, said in words naming it; and no child left behind.

use std::time::Duration;

use crewgraph_engine::crew::ToolServer;
use crewgraph_engine::run::ToolHost;
use crewgraph_mcp::McpHost;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::{alive, everything, faulty, logs, processes_with, until, with_timeout};

async fn tools_error(server: &ToolServer) -> String {
    let logs = logs();
    McpHost::new(logs.path()).tools(server, &CancellationToken::new()).await.expect_err("a failure")
}

#[tokio::test]
async fn a_server_that_exits_at_start_is_said_with_the_end_of_its_log() {
    let error = tools_error(&faulty("exit-at-start")).await;
    assert!(
        error.starts_with("the tool server 'faulty-exit-at-start' did not start as an MCP server: it stopped before it answered"),
        "{error}"
    );
    assert!(error.contains("faulty server: cannot open its configuration"), "{error}");
}

#[tokio::test]
async fn a_command_that_is_not_installed_is_said_in_words() {
    let error = tools_error(&ToolServer::command("missing", "no-such-mcp-server-8c2", &[])).await;
    assert_eq!(error, "the tool server 'missing' could not start: the command 'no-such-mcp-server-8c2' was not found (is it installed?)");
}

#[tokio::test]
async fn a_server_that_hangs_in_initialize_or_speaks_no_json_rpc_times_out() {
    for fault in ["hang", "garbage"] {
        let error = tools_error(&with_timeout(faulty(fault), Duration::from_secs(2))).await;
        assert!(error.starts_with(&format!("the tool server 'faulty-{fault}' did not answer MCP's 'initialize' within 2s")), "{error}");
    }
}

#[tokio::test]
async fn a_server_that_crashes_mid_call_is_restarted_once_and_not_again() {
    let logs = logs();
    let host = McpHost::new(logs.path());
    let server = faulty("crash-on-call");
    let cancel = CancellationToken::new();
    let first = host.call(&server, "work", &json!({}), &|_| {}, &cancel).await.unwrap_err();
    assert!(first.starts_with("the tool server 'faulty-crash-on-call' stopped (failed in work)"), "{first}");
    assert!(first.contains("crashed in the middle of a call"), "its log says why: {first}");
    // Started again for the next call, which crashes it again.
    let second = host.call(&server, "work", &json!({}), &|_| {}, &cancel).await.unwrap_err();
    assert!(second.contains("stopped (failed in work)"), "{second}");
    let third = host.call(&server, "work", &json!({}), &|_| {}, &cancel).await.unwrap_err();
    assert_eq!(
        third,
        "the tool server 'faulty-crash-on-call' stopped again after it was restarted once, so it is not started a third time"
    );
}

#[tokio::test]
async fn a_result_of_ten_megabytes_is_refused_in_words() {
    let logs = logs();
    let host = McpHost::new(logs.path());
    let error = host.call(&faulty("huge"), "work", &json!({}), &|_| {}, &CancellationToken::new()).await.unwrap_err();
    assert_eq!(error, "the tool server 'faulty-huge' sent a result of 10.0 MB, more than the 1.0 MB Crewgraph takes from a tool");
}

#[tokio::test]
async fn stopping_the_host_leaves_no_server_process_behind() {
    // A mark of this test's own in the server's command line (the server ignores it),
    // so the other tests' servers, running at the same time, are not counted.
    let marked = |mark: &str| {
        let mut server = everything();
        if let crewgraph_engine::crew::ServerTransport::Stdio { args, .. } = &mut server.transport {
            args.push(mark.to_owned());
        }
        server
    };
    let logs = logs();
    let stopped_mark = format!("--crewgraph-test-stopped-{}", std::process::id());
    let host = McpHost::new(logs.path());
    host.tools(&marked(&stopped_mark), &CancellationToken::new()).await.unwrap();
    let running = processes_with(&stopped_mark);
    assert!(!running.is_empty(), "the server runs");
    host.stop().await;
    until("the server's processes to end", || running.iter().all(|pid| !alive(*pid))).await;
    // And dropping a host without stopping it kills its children too.
    let dropped_mark = format!("--crewgraph-test-dropped-{}", std::process::id());
    let host = McpHost::new(logs.path());
    host.tools(&marked(&dropped_mark), &CancellationToken::new()).await.unwrap();
    let before = processes_with(&dropped_mark);
    assert!(!before.is_empty());
    drop(host);
    until("the dropped host's server to end", || before.iter().all(|pid| !alive(*pid))).await;
}
