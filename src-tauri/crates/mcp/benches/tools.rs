//! Tool calls through the engine against calls made straight to the server
//! (`cargo bench -p crewgraph-mcp --bench tools`, in `make bench`; BENCHMARKS.md):
//! npm's server-everything over stdio, its `echo` tool.
//!
//! - the round trip of one call through the engine's `Tools` and `McpHost`, and the
//!   same call made with the SDK's client alone on a server of its own — the
//!   difference is Crewgraph's overhead (target: ≤ 1 ms at p50);
//! - a server's start: from nothing to its tools listed;
//! - 100 calls at once on one server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph_engine::crew::{Agent, ToolServer};
use crewgraph_engine::run::{SteppingClock, Timestamp, ToolCall, ToolHost, Tools};
use crewgraph_engine::AgentId;
use crewgraph_mcp::McpHost;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const CALLS: usize = 300;

fn everything() -> (String, ToolServer) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../.tools/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.exists(), "{} is missing: run scripts/install-mcp-servers.sh", script.display());
    let script = script.display().to_string();
    (script.clone(), ToolServer::command("everything", "node", &[&script, "stdio"]))
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    times[((times.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let (script, server) = everything();
    let logs = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();

    // A server's start, five times: a new host each time, to its tools listed.
    let mut starts = Vec::new();
    for _ in 0..5 {
        let host = McpHost::new(logs.path());
        let began = Instant::now();
        host.tools(&server, &cancel).await.unwrap();
        starts.push(began.elapsed());
        host.stop().await;
    }

    // Through the engine: Tools (names, permission-free call) and McpHost.
    let host: Arc<McpHost> = Arc::new(McpHost::new(logs.path()));
    let clock = Arc::new(SteppingClock::new(Timestamp(0), 0));
    let tools = Tools::new(clock, None, Vec::new()).with_servers(vec![server.clone()], Some(host.clone() as Arc<dyn ToolHost>));
    let agent = Agent { id: AgentId::from("a"), tools: vec!["everything.echo".into()], ..Agent::default() };
    tools.specs(&agent, &cancel).await.unwrap();
    let call = ToolCall { id: "c".into(), name: "everything__echo".into(), arguments: json!({"message": "hello"}) };
    let mut engine = Vec::with_capacity(CALLS);
    for i in 0..CALLS + 20 {
        let began = Instant::now();
        let out = tools.call(&agent, &call, &|_| {}, &cancel).await.unwrap();
        if i >= 20 {
            engine.push(began.elapsed());
        }
        assert_eq!(out, "Echo: hello");
    }

    // Straight to a server of its own with the SDK's client.
    let child = TokioChildProcess::new({
        let mut command = tokio::process::Command::new("node");
        command.arg(&script).arg("stdio").stderr(std::process::Stdio::null());
        command
    })
    .unwrap();
    let client = ().serve(child).await.unwrap();
    let mut direct = Vec::with_capacity(CALLS);
    for i in 0..CALLS + 20 {
        let mut params = CallToolRequestParams::new("echo");
        params.arguments = json!({"message": "hello"}).as_object().cloned();
        let began = Instant::now();
        client.peer().call_tool(params).await.unwrap();
        if i >= 20 {
            direct.push(began.elapsed());
        }
    }

    // 100 calls at once on the engine's server.
    let began = Instant::now();
    let many = futures_util::future::join_all((0..100).map(|_| {
        let (tools, agent, call, cancel) = (tools.clone(), agent.clone(), call.clone(), cancel.clone());
        async move {
            let began = Instant::now();
            tools.call(&agent, &call, &|_| {}, &cancel).await.unwrap();
            began.elapsed()
        }
    }))
    .await;
    let wall = began.elapsed();
    let mut many = many;

    let (e50, e95) = (percentile(&mut engine, 0.5), percentile(&mut engine, 0.95));
    let (d50, d95) = (percentile(&mut direct, 0.5), percentile(&mut direct, 0.95));
    println!("tool call round trip, {CALLS} calls of server-everything's echo over stdio:");
    println!("  through the engine (Tools + McpHost): p50 {}  p95 {}", ms(e50), ms(e95));
    println!("  the SDK's client alone:               p50 {}  p95 {}", ms(d50), ms(d95));
    println!("  engine overhead at p50: {} ({:.2}x)", ms(e50.saturating_sub(d50)), e50.as_secs_f64() / d50.as_secs_f64());
    println!(
        "server start to tools listed, 5 starts: min {}  median {}  max {}",
        ms(starts.iter().copied().min().unwrap()),
        ms(percentile(&mut starts, 0.5)),
        ms(starts.iter().copied().max().unwrap())
    );
    println!(
        "100 calls at once on one server: all done in {}; each p50 {}  p95 {}",
        ms(wall),
        ms(percentile(&mut many, 0.5)),
        ms(percentile(&mut many, 0.95))
    );
    let _ = client.cancel().await;
    host.stop().await;
}
