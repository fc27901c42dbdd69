//! End-to-end helpers for runs through the real binary: a sandbox folder with its
//! own database, `crewgraph` runs with a time limit, a run started as a child
//! process whose stdout is read line by line (to kill it at a chosen line), and
//! readers for what the database holds afterwards (`runs --json`, `replay --json`,
//! SQLite's own integrity check).
//!
//! Nothing here sleeps to decide an outcome: a child is stopped at a line it has
//! printed, and every wait has a generous limit that only turns a hang into a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{crewgraph, repo_root, Run};

/// The longest any one `crewgraph` command may take before the test calls it hung
/// (the machine is a busy 2-core box; a healthy command takes well under a second).
pub const COMMAND_LIMIT: Duration = Duration::from_secs(120);

/// How long to wait for the next line of a running child.
pub const LINE_LIMIT: Duration = Duration::from_secs(60);

/// A temp folder holding a database (`runs.db`), crews and scripts of one test.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox { dir: tempfile::tempdir().expect("a temp dir") }
    }

    /// The test's database file.
    pub fn db(&self) -> PathBuf {
        self.dir.path().join("runs.db")
    }

    /// A path inside the sandbox.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `text` to `name` in the sandbox; returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).expect("write a sandbox file");
        path
    }

    /// Runs `crewgraph ARGS --db <the sandbox's database>` in the repository root.
    pub fn cg(&self, args: &[&str]) -> Run {
        let db = self.db();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--db", db.to_str().expect("UTF-8 temp path")]);
        cg_in(&repo_root(), &all)
    }

    /// The runs `crewgraph runs --json` lists, newest first.
    pub fn runs(&self) -> Vec<Value> {
        let run = self.cg(&["runs", "--json"]);
        assert_eq!(run.code, 0, "runs --json works: {}", run.stderr);
        run.lines().iter().map(|l| parse(l)).collect()
    }

    /// The status `runs --json` shows for `id`.
    pub fn status(&self, id: &str) -> String {
        let runs = self.runs();
        let run = runs.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("run {id} is listed: {runs:?}"));
        run["status"].as_str().expect("a status").to_owned()
    }

    /// `crewgraph replay ID --json`, as lines.
    pub fn replay(&self, id: &str) -> Vec<String> {
        let run = self.cg(&["replay", id, "--json"]);
        assert_eq!(run.code, 0, "replay of {id} works: {}", run.stderr);
        run.stdout.lines().map(str::to_owned).collect()
    }

    /// Starts `crewgraph ARGS --db <the sandbox's database>` as a child whose stdout
    /// is read line by line.
    pub fn spawn(&self, args: &[&str]) -> Spawned {
        let db = self.db();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--db", db.to_str().expect("UTF-8 temp path")]);
        Spawned::start(&repo_root(), &all)
    }

    /// SQLite's own verdict on the file: `PRAGMA integrity_check` answers "ok" and
    /// no row breaks a foreign key.
    pub fn assert_database_is_sound(&self) {
        let conn = rusqlite::Connection::open(self.db()).expect("the database opens");
        let verdict: Vec<String> =
            conn.prepare("PRAGMA integrity_check").unwrap().query_map([], |row| row.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(verdict, ["ok"], "SQLite finds the file intact");
        let broken: i64 = conn.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| row.get(0)).unwrap();
        assert_eq!(broken, 0, "no row points at a row that is not there");
    }
}

/// Runs the binary in `dir`, failing the test if it takes longer than [`COMMAND_LIMIT`].
pub fn cg_in(dir: &Path, args: &[&str]) -> Run {
    let output = crewgraph().current_dir(dir).args(args).timeout(COMMAND_LIMIT).output().expect("crewgraph runs");
    let run = Run {
        code: output.status.code().unwrap_or_else(|| panic!("crewgraph {args:?} exited by a signal (or hung): {output:?}")),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    };
    assert_no_panic(&run.stderr);
    run
}

/// A panic is never how a user learns what went wrong (DESIGN.md §11).
pub fn assert_no_panic(stderr: &str) {
    assert!(!stderr.contains("panicked"), "crewgraph panicked: {stderr}");
    assert!(!stderr.contains("RUST_BACKTRACE"), "crewgraph panicked: {stderr}");
}

/// Parses one JSON line.
pub fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

/// The `type` of a JSON event line.
pub fn kind(line: &str) -> String {
    parse(line)["type"].as_str().expect("a type").to_owned()
}

/// The `seq` of a JSON event line.
pub fn seq(line: &str) -> u64 {
    parse(line)["seq"].as_u64().expect("a seq")
}

/// Asserts the lines' seqs are 0, 1, 2 … with no gap or repeat.
pub fn assert_contiguous(lines: &[String], what: &str) {
    let seqs: Vec<u64> = lines.iter().map(|l| seq(l)).collect();
    assert_eq!(seqs, (0..lines.len() as u64).collect::<Vec<_>>(), "{what}: seqs run from 0 without a gap");
}

/// The run id of a JSON event line.
pub fn run_id(line: &str) -> String {
    parse(line)["run_id"].as_str().expect("a run_id").to_owned()
}

/// A `crewgraph` child process, its stdout read on a thread and handed over line by line.
pub struct Spawned {
    pub child: Child,
    lines: Receiver<String>,
    /// Every line read so far.
    pub printed: Vec<String>,
    pub args: Vec<String>,
}

impl Spawned {
    fn start(dir: &Path, args: &[&str]) -> Spawned {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crewgraph"))
            .current_dir(dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("crewgraph starts");
        let stdout: ChildStdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Spawned { child, lines, printed: Vec::new(), args: args.iter().map(|a| a.to_string()).collect() }
    }

    /// Waits for the next line (None at the end of the output).
    pub fn next_line(&mut self) -> Option<String> {
        match self.lines.recv_timeout(LINE_LIMIT) {
            Ok(line) => {
                self.printed.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("crewgraph {:?} printed nothing for {LINE_LIMIT:?}; printed so far: {:#?}", self.args, self.printed)
            }
        }
    }

    /// Reads until `n` lines have been printed in all.
    pub fn read_lines(&mut self, n: usize) {
        while self.printed.len() < n {
            if self.next_line().is_none() {
                panic!("crewgraph {:?} ended after {} lines, before line {n}: {:#?}", self.args, self.printed.len(), self.printed);
            }
        }
    }

    /// Reads until a line satisfying `found` has been printed; returns it.
    pub fn read_until(&mut self, found: impl Fn(&str) -> bool) -> String {
        loop {
            match self.next_line() {
                Some(line) if found(&line) => return line,
                Some(_) => {}
                None => panic!("crewgraph {:?} ended without the awaited line: {:#?}", self.args, self.printed),
            }
        }
    }

    /// Collects what the child prints for `wait` (the soak's random kill moment);
    /// returns early, true, when its output ends (it is exiting or gone).
    pub fn read_for(&mut self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match self.lines.recv_timeout(left) {
                Ok(line) => self.printed.push(line),
                Err(RecvTimeoutError::Timeout) => return false,
                Err(RecvTimeoutError::Disconnected) => return true,
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: the process dies at once, with no chance to clean up.
    pub fn kill9(&mut self) {
        self.child.kill().expect("SIGKILL is delivered");
    }

    /// Sends a signal (SIGINT for Ctrl-C).
    pub fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.pid()).expect("a pid");
        // SAFETY: kill(2) with a pid this test started and has not reaped.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "the signal is delivered");
    }

    /// Reads what is left of stdout (lines printed before the process ended) and
    /// waits for the process, within [`COMMAND_LIMIT`]; returns its status and stderr.
    pub fn finish(&mut self) -> (ExitStatus, String) {
        let started = Instant::now();
        while self.next_line().is_some() {}
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for crewgraph") {
                break status;
            }
            if started.elapsed() > COMMAND_LIMIT {
                let _ = self.child.kill();
                panic!("crewgraph {:?} did not exit within {COMMAND_LIMIT:?}", self.args);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            use std::io::Read;
            let _ = err.read_to_string(&mut stderr);
        }
        assert_no_panic(&stderr);
        (status, stderr)
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // A test that failed half-way leaves no crewgraph behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One agent's scripted reply, for writing scripts from tests.
#[derive(Clone, Debug)]
pub struct Reply {
    pub text: &'static str,
    pub delay_ms: u64,
}

/// A reply that comes at once.
pub const fn now(text: &'static str) -> Reply {
    Reply { text, delay_ms: 0 }
}

/// A reply that takes `delay_ms` to stream.
pub const fn slow(text: &'static str, delay_ms: u64) -> Reply {
    Reply { text, delay_ms }
}

/// A script (DESIGN.md §6) giving each agent its replies in order.
pub fn script<A: AsRef<str>>(replies: &[(A, Vec<Reply>)]) -> String {
    let mut yaml = String::from("replies:\n");
    for (agent, replies) in replies {
        yaml.push_str(&format!("  {}:\n", agent.as_ref()));
        for reply in replies {
            let text = serde_json::to_string(reply.text).expect("a string");
            yaml.push_str(&format!("    - {{ content: {text}, delay_ms: {} }}\n", reply.delay_ms));
        }
    }
    yaml
}

/// The replies a run has not used yet: each agent's replies after the ones whose
/// `agent_response` is in `stored` (the scripts here have no tool calls, so one
/// reply is one response). The replies of a step lost to a crash are given again.
pub fn remaining<A: AsRef<str>>(replies: &[(A, Vec<Reply>)], stored: &[String]) -> Vec<(String, Vec<Reply>)> {
    replies
        .iter()
        .map(|(agent, replies)| {
            let agent = agent.as_ref();
            let used = stored.iter().map(|l| parse(l)).filter(|e| e["type"] == "agent_response" && e["agent"] == agent).count();
            (agent.to_owned(), replies.iter().skip(used).cloned().collect())
        })
        .collect()
}

/// The same replies, each coming at once.
pub fn instant<A: AsRef<str>>(replies: &[(A, Vec<Reply>)]) -> Vec<(String, Vec<Reply>)> {
    replies
        .iter()
        .map(|(agent, replies)| (agent.as_ref().to_owned(), replies.iter().map(|r| Reply { delay_ms: 0, ..r.clone() }).collect()))
        .collect()
}

/// The repository's `crews/NAME`.
pub fn example(name: &str) -> String {
    repo_root().join("crews").join(name).display().to_string()
}
