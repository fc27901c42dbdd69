//! The `crewgraph serve` binary: it refuses a non-loopback address without a token
//! (before opening anything), says where it listens, and on SIGTERM mid-run stops
//! well — its watchers are told, it exits 0, the database is whole, and the run it
//! was running is resumable with every stored event intact.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

use super::{assert_contiguous, messages, ping_pong, Fixture, Setup, TestServer, LIMIT};
use crate::support::{crewgraph, repo_root};

fn binary() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_crewgraph"))
}

/// A `crewgraph serve` child, killed if a failing test leaves it running.
pub(crate) struct Served(pub(crate) Child);

impl Drop for Served {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

impl std::ops::Deref for Served {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Served {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

/// `crewgraph serve ARGS` as a child; its address once it says it listens.
pub(crate) fn spawn(fixture: &Fixture, args: &[&str]) -> (Served, String) {
    let mut command = Command::new(binary());
    command.arg("serve").args(["--db", fixture.db().to_str().unwrap(), "--crews", fixture.crews().to_str().unwrap()]).args(args);
    start(fixture, command).unwrap_or_else(|(code, stderr)| panic!("crewgraph serve ended ({code}) before it listened: {stderr}"))
}

/// `command` (a `crewgraph serve`) as a child in the fixture's folder, killed if a
/// failing test leaves it, and its address once it says it listens; or, when it
/// ends first, its exit status and standard error.
pub(crate) fn start(fixture: &Fixture, mut command: Command) -> Result<(Served, String), (i32, String)> {
    let mut child = Served(
        command.current_dir(fixture.dir.path()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("crewgraph serve starts"),
    );
    let stdout = child.stdout.take().unwrap();
    let (lines, read) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    match read.recv_timeout(LIMIT) {
        Ok(line) => {
            let addr =
                line.strip_prefix("crewgraph serve: listening on http://").unwrap_or_else(|| panic!("unexpected first line: {line}"));
            Ok((child, addr.to_owned()))
        }
        Err(_) => {
            let status = child.wait().unwrap();
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            Err((status.code().unwrap_or(-1), stderr))
        }
    }
}

fn wait(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "crewgraph serve did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_non_loopback_address_without_a_token_is_refused_before_anything_opens() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("never.db");
    for args in [vec!["--addr", "0.0.0.0:0"], vec!["--addr", "[::]:0"], vec!["--addr", "0.0.0.0:0", "--token", " "]] {
        let output = crewgraph()
            .current_dir(repo_root())
            .env_remove("CREWGRAPH_TOKEN")
            .arg("serve")
            .args(&args)
            .args(["--db", db.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("token"), "the refusal says what is missing: {stderr}");
        assert!(!db.exists(), "nothing was opened");
    }
}

#[test]
fn a_non_loopback_address_with_a_token_starts_and_wants_the_token() {
    let fixture = Fixture::new();
    let (mut child, addr) = spawn(&fixture, &["--addr", "0.0.0.0:0", "--token", "t0ken-0123456789abcdef"]);
    let port = addr.rsplit(':').next().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let http = reqwest::Client::new();
        let url = format!("http://127.0.0.1:{port}");
        assert_eq!(http.get(format!("{url}/health")).send().await.unwrap().status(), StatusCode::OK);
        assert_eq!(http.get(format!("{url}/crews")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
        let allowed = http.get(format!("{url}/crews")).bearer_auth("t0ken-0123456789abcdef").send().await.unwrap();
        assert_eq!(allowed.status(), StatusCode::OK);
    });
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(wait(&mut child).success());
}

#[test]
fn sigterm_mid_run_exits_0_and_leaves_the_run_resumable_with_its_events_intact() {
    let fixture = Fixture::new();
    let (mut child, addr) = spawn(&fixture, &["--addr", "127.0.0.1:0"]);
    let url = format!("http://{addr}");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (id, seen) = runtime.block_on(async {
        let http = reqwest::Client::new();
        // 2 × 40 turns of 100 ms: it is going on when the signal comes.
        let body = json!({"crew": "ping-pong.yaml", "input": "go", "script": ping_pong(40, 100, 3)});
        let started =
            http.post(format!("{url}/runs")).header("content-type", "application/json").body(body.to_string()).send().await.unwrap();
        assert_eq!(started.status(), StatusCode::ACCEPTED);
        let id =
            serde_json::from_slice::<serde_json::Value>(&started.bytes().await.unwrap()).unwrap()["run_id"].as_str().unwrap().to_owned();
        let watching = http.get(format!("{url}/runs/{id}/events")).send().await.unwrap();
        let pid = child.id() as i32;
        let reader = tokio::spawn(messages(watching, None));
        tokio::time::sleep(Duration::from_millis(700)).await;
        unsafe { libc::kill(pid, libc::SIGTERM) };
        (id, reader.await.unwrap())
    });
    let status = wait(&mut child);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "a clean stop: {stderr}");
    assert!(stderr.contains(&id), "it says which run it left resumable: {stderr}");

    // The watcher was told, and its last id now names the last stored event.
    let last = seen.last().expect("the watcher saw events");
    assert_eq!(last.event, "interrupted", "{last:?}");
    let events: Vec<_> = seen.iter().filter(|m| m.event == "message").collect();
    assert!(events.len() > 5, "the run was under way");
    assert!(events.iter().all(|m| m.kind() != "run_finished"), "it did not finish");

    // Through a new server on the same database: the run is `running`, not live,
    // its stored events gap-free from 0, up to the interrupted message's id.
    runtime.block_on(async {
        let server = TestServer::start_on(fixture, Setup::default()).await;
        let detail = server.get(&format!("/runs/{id}")).await;
        assert_eq!(detail.json["run"]["status"], json!("running"), "{detail:?}");
        assert_eq!(detail.json["live"], json!(false));
        let stored = server.stored_events(&id).await;
        let seqs: Vec<u64> = stored.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
        assert_contiguous(&seqs);
        assert_eq!(last.id, seqs.last().unwrap().to_string(), "interrupted resets the client to the last stored event");
        for message in &events {
            if message.seq() <= *seqs.last().unwrap() {
                assert_eq!(message.data, stored[message.seq() as usize], "what the watcher saw is what was kept");
            }
        }

        // Resumed (no answer needed for an interrupted run), it goes on to the end.
        let script = json!({"replies": {"ping": ["done [END]"], "pong": ["back to you [NEXT]"]}});
        let resumed = server.post(&format!("/runs/{id}/resume"), json!({"script": script})).await;
        assert_eq!(resumed.status, StatusCode::ACCEPTED, "{resumed:?}");
        assert_eq!(server.settled(&id).await["status"], json!("terminated"));
        let all = server.stored_events(&id).await;
        assert_contiguous(&all.iter().map(|e| e["seq"].as_u64().unwrap()).collect::<Vec<_>>());
        assert_eq!(&all[..stored.len()], &stored[..], "the events from before the stop are untouched");
        assert!(all.iter().any(|e| e["type"] == json!("warning") && e["message"].as_str().unwrap().contains("interrupted")));
    });
}
