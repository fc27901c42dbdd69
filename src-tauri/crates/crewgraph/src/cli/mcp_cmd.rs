//! `crewgraph mcp`: the crews of a folder as MCP tools over stdin/stdout (see
//! [`crewgraph::mcp_server`]), for Claude Desktop, Cursor, VS Code or any MCP
//! client that starts a server as a program. Stdout carries only the protocol;
//! what the person should know goes to stderr. It runs until the client closes
//! its input, then stops the tool servers its crews started, sends the traces not
//! sent yet (when traces are on), lets the database finish its writes, and exits 0.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crewgraph::api::Api;

use super::store::open_host;
use super::terminal::tell;

/// What `mcp` is given.
pub struct McpArgs {
    pub crews: PathBuf,
    pub db: Option<PathBuf>,
}

pub fn run(args: McpArgs) -> ExitCode {
    if !args.crews.is_dir() {
        return fail(&format!("the crews folder '{}' is not a folder (give one with --crews DIR)", args.crews.display()));
    }
    let (path, store, runtime) = match open_host(args.db.as_deref()) {
        Ok(host) => host,
        Err(error) => return fail(&error),
    };
    let api = match Api::new(&args.crews).with_sqlite(store.clone()).within_crews_folder() {
        Ok(api) => api,
        Err(error) => return fail(&format!("the crews folder '{}' cannot be read: {error}", args.crews.display())),
    };
    let crews = std::path::absolute(&args.crews).unwrap_or(args.crews.clone());
    tell!("crewgraph mcp: the crews of {} as MCP tools on stdin/stdout, runs in {}", crews.display(), path.display());
    let outcome = runtime.block_on(async {
        let served = crewgraph::mcp_server::serve_stdio(api.clone()).await;
        // Runs still going on when the client left stop where they stand (resumable).
        api.interrupt_runs().await;
        api.stop_tool_servers().await;
        if let Some(lost) = api.flush_traces(Duration::from_secs(5)) {
            tell!("crewgraph mcp: {lost}");
        }
        served
    });
    runtime.shutdown_timeout(Duration::from_secs(5));
    drop(store);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(&error),
    }
}

fn fail(error: &str) -> ExitCode {
    tell!("crewgraph mcp: {error}");
    ExitCode::FAILURE
}
