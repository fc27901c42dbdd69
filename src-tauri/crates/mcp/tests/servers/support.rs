//! Where the installed servers are, and small helpers.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crewgraph_engine::crew::{ServerTransport, ServerValue, ToolServer};
use crewgraph_engine::run::ToolProgress;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().expect("the repository root")
}

/// An installed file of `.tools/mcp`, or a failure saying how to install it.
fn installed(relative: &str) -> String {
    let path = root().join(".tools/mcp").join(relative);
    assert!(path.exists(), "{} is missing: run scripts/install-mcp-servers.sh (make test does)", path.display());
    path.to_string_lossy().into_owned()
}

/// npm's server-everything over stdio.
pub fn everything() -> ToolServer {
    let script = installed("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    ToolServer::command("everything", "node", &[&script, "stdio"])
}

/// npm's server-filesystem, allowed into `root` only.
pub fn filesystem(root: &std::path::Path) -> ToolServer {
    let script = installed("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    ToolServer::command("files", "node", &[&script, &root.to_string_lossy()])
}

/// PyPI's mcp-server-time.
pub fn time() -> ToolServer {
    let program = installed("venv/bin/mcp-server-time");
    ToolServer::command("clock", &program, &["--local-timezone", "UTC"])
}

/// `faulty_server.py` acting out `fault`.
pub fn faulty(fault: &str) -> ToolServer {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/faulty_server.py");
    ToolServer::command(&format!("faulty-{fault}"), "python3", &[&script.to_string_lossy(), fault])
}

/// `server` with `timeout` per call.
pub fn with_timeout(mut server: ToolServer, timeout: Duration) -> ToolServer {
    server.timeout = timeout;
    server
}

/// `server` with an environment variable for its process.
pub fn with_env(mut server: ToolServer, name: &str, value: ServerValue) -> ToolServer {
    if let ServerTransport::Stdio { env, .. } = &mut server.transport {
        env.push((name.to_owned(), value));
    }
    server
}

/// A log folder of its own for a test's host.
pub fn logs() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// Progress heard, kept for the test to look at.
#[derive(Clone, Default)]
pub struct Heard(pub Arc<Mutex<Vec<ToolProgress>>>);

impl Heard {
    pub fn hear(&self) -> impl Fn(ToolProgress) + Send + Sync + 'static {
        let heard = self.0.clone();
        move |p| heard.lock().unwrap().push(p)
    }

    pub fn count(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// Waits (generously) until `done` holds.
pub async fn until(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(60), "waited a minute for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A loopback port free now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Whether a process with this id is still alive.
pub fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
}

/// The ids of the processes whose command line contains `text`.
pub fn processes_with(text: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if String::from_utf8_lossy(&cmdline).contains(text) && alive(pid) {
            found.push(pid);
        }
    }
    found
}
