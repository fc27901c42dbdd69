//! A real Redis server for tests (the `testing` feature): [`RedisServer`] starts
//! Debian's `redis-server` on a free port of 127.0.0.1 with a folder of its own and
//! nothing saved (`--save "" --appendonly no`) — never a system service.
//!
//! - **Ready** when it answers `PING` on its port, tried every 20 ms for at most
//!   60 s; a server that does not start says why (the end of its log).
//! - **Stopped** by [`RedisServer::stop`] and [`Drop`], and, whatever happens to the
//!   test process (a panic, `exit`, `kill -9`), by the small shell it runs under: it
//!   waits for end of file on a pipe only the test process holds, then stops the
//!   server. The process ending closes the pipe, so no server outlives its tests.
//! - **Restarted** on the same port by [`RedisServer::restart`], empty (as a Redis
//!   that lost its data comes back).
//!
//! ```no_run
//! use crewgraph_queue::testing::RedisServer;
//! let redis = RedisServer::start().expect("a redis-server for the test");
//! println!("{}", redis.url());
//! ```

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to answer its first `PING`.
const READY: Duration = Duration::from_secs(60);

/// Why a test's Redis server could not be had.
#[derive(Debug, thiserror::Error)]
#[error("the test's redis-server could not {doing}: {detail}")]
pub struct LaunchError {
    doing: String,
    detail: String,
}

/// A `redis-server` of a test's own.
pub struct RedisServer {
    port: u16,
    dir: tempfile::TempDir,
    /// The shell the server runs under; its stdin is the pipe that keeps it.
    keeper: Option<Child>,
}

impl RedisServer {
    /// Starts one on a free port.
    pub fn start() -> Result<RedisServer, LaunchError> {
        let mut last = None;
        // A free port can be taken between finding it and the server binding it: try another.
        for _ in 0..3 {
            let dir = tempfile::tempdir().map_err(|err| failed("make its folder", err))?;
            let mut server = RedisServer { port: free_port()?, dir, keeper: None };
            match server.launch() {
                Ok(()) => return Ok(server),
                Err(err) => last = Some(err),
            }
        }
        Err(last.expect("tried at least once"))
    }

    /// Its address (`redis://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops it at once (as a crash would) and waits until it is gone.
    pub fn stop(&mut self) {
        if let Some(mut keeper) = self.keeper.take() {
            // Closing the pipe lets the shell go on: it stops the server and ends.
            drop(keeper.stdin.take());
            let _ = keeper.wait();
        }
    }

    /// Stops it and starts it again on the same port, empty.
    pub fn restart(&mut self) -> Result<(), LaunchError> {
        self.stop();
        // The port is free again once the server is gone; retry while the kernel lets go of it.
        let deadline = Instant::now() + READY;
        loop {
            match self.launch() {
                Ok(()) => return Ok(()),
                Err(err) if Instant::now() >= deadline => return Err(err),
                Err(_) => {
                    self.stop();
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }

    fn launch(&mut self) -> Result<(), LaunchError> {
        let log = self.dir.path().join("redis.log");
        let _ = std::fs::remove_file(&log);
        let script = r#"redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --dir "$2" --logfile "$3" &
pid=$!
cat >/dev/null
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
exit 0"#;
        let keeper = Command::new("sh")
            .args(["-c", script, "redis-keeper", &self.port.to_string()])
            .arg(self.dir.path())
            .arg(&log)
            .env("PATH", path_with_sbin())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| failed("start (is redis-server installed? the Makefile's test-deps installs it)", err))?;
        self.keeper = Some(keeper);
        let deadline = Instant::now() + READY;
        loop {
            if answers_ping(self.port) {
                return Ok(());
            }
            let gone = self.keeper.as_mut().and_then(|k| k.try_wait().ok().flatten()).is_some();
            if gone || Instant::now() >= deadline {
                return Err(LaunchError {
                    doing: "start".into(),
                    detail: format!("it did not answer on port {}: {}", self.port, tail(&log)),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether a Redis server answers `PING` on `port`.
fn answers_ping(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(1)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut answer = [0u8; 7];
    stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
}

/// `PATH` with Debian's sbin folders, where some put `redis-server`.
fn path_with_sbin() -> String {
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{path}:/usr/sbin:/usr/bin:/sbin:/bin")
}

fn free_port() -> Result<u16, LaunchError> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|err| failed("find a free port", err))?;
    listener.local_addr().map(|a| a.port()).map_err(|err| failed("find a free port", err))
}

fn failed(doing: &str, err: std::io::Error) -> LaunchError {
    LaunchError { doing: doing.into(), detail: err.to_string() }
}

/// The last lines of the server's log, or that it has none.
fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    if lines.is_empty() {
        format!("its log ({}) is empty", PathBuf::from(log).display())
    } else {
        lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
    }
}
