//! Crews called from other apps (issue 19), by the official Python SDKs the way those
//! apps call them: PyPI `mcp` over stdio (`crewgraph mcp`) and over Streamable HTTP
//! (`/mcp` of `crewgraph serve`), PyPI `openai` against `/v1` of `crewgraph serve`
//! (its token as the API key). Each script (beside this file) walks the same
//! journeys — a crew that runs to its end, one that waits for a person and goes on,
//! one that fails, bad calls, and one cancelled mid-run — and asserts the answers;
//! this side checks what only the store can tell: the cancelled run ended
//! `cancelled`. Runs are Simulate runs (`model: simulate`, the crews' own scripts).
//! The SDKs come from `make mcp-servers` (.tools/mcp/venv).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::e2e::{assert_no_panic, cg_in, parse};
use crate::serve::{ASK, BROKEN, PING_PONG};
use crate::support::repo_root;

/// The longest a journey may take on a busy machine.
const LIMIT: Duration = Duration::from_secs(300);

/// A crews folder for the callers: the exam, a crew that asks (pauses), one whose
/// run fails (its script runs out), one whose second agent takes minutes (to be
/// cancelled), one with no Simulate script, and one with errors (offered to
/// nobody).
struct Crews {
    dir: tempfile::TempDir,
}

impl Crews {
    fn new() -> Crews {
        let dir = tempfile::tempdir().unwrap();
        let crews = dir.path().join("crews");
        let scripts = crews.join("scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        std::fs::copy(repo_root().join("crews/exam.yaml"), crews.join("exam.yaml")).unwrap();
        std::fs::copy(repo_root().join("crews/scripts/exam.yaml"), scripts.join("exam.yaml")).unwrap();
        let files = [
            ("ask.yaml", ASK),
            ("scripts/ask.yaml", "replies:\n  asker: [\"What is your name?\", \"Hello, Ada. [END]\"]\n"),
            ("fails.yaml", PING_PONG),
            ("scripts/fails.yaml", "replies:\n  ping: [\"Over to you [NEXT]\"]\n  pong: [\"Back to you [NEXT]\"]\n"),
            ("slow.yaml", PING_PONG),
            (
                "scripts/slow.yaml",
                "replies:\n  ping: [\"Over to you [NEXT]\"]\n  pong: [{content: \"Done at last [NEXT]\", delay_ms: 600000}]\n",
            ),
            ("plain.yaml", ASK),
            ("broken.yaml", BROKEN),
        ];
        for (name, text) in files {
            std::fs::write(crews.join(name), text).unwrap();
        }
        Crews { dir }
    }

    fn crews(&self) -> PathBuf {
        self.dir.path().join("crews")
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("callers.db")
    }
}

fn python() -> PathBuf {
    let python = repo_root().join(".tools/mcp/venv/bin/python");
    assert!(python.exists(), "the Python SDKs are installed by `make mcp-servers` ({} is missing)", python.display());
    python
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/callers").join(name)
}

/// Runs a caller script: once it says `cancel-sent`, waits until `cancelled()`
/// holds, lets it finish, and asserts it said `ok`.
fn walk(mut command: Command, cancelled: impl Fn() -> bool) {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("python starts");
    let stdout = child.stdout.take().unwrap();
    let (lines, read) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let deadline = Instant::now() + LIMIT;
    let next_line = |child: &mut Child| loop {
        match read.recv_timeout(Duration::from_millis(200)) {
            Ok(line) => return line,
            Err(_) if Instant::now() > deadline => panic!("the caller script hung: {}", finish(child)),
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the caller script failed:\n{}", finish(child)),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    };
    assert_eq!(next_line(&mut child), "cancel-sent");
    while !cancelled() {
        assert!(Instant::now() < deadline, "the cancelled call's run never ended cancelled");
        std::thread::sleep(Duration::from_millis(100));
    }
    child.stdin.take().unwrap().write_all(b"go on\n").unwrap();
    assert_eq!(next_line(&mut child), "ok");
    let status = child.wait().unwrap();
    assert!(status.success(), "the caller script failed: {}", finish(&mut child));
}

fn finish(child: &mut Child) -> String {
    let _ = child.kill();
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
    }
    stderr
}

/// The status of the slow crew's run in `runs`, once there is one.
fn slow_status(runs: &[Value]) -> Option<String> {
    runs.iter()
        .find(|r| r["crew_path"].as_str().is_some_and(|p| p.ends_with("slow.yaml")))
        .and_then(|r| r["status"].as_str().map(str::to_owned))
}

#[test]
fn an_mcp_client_calls_crews_over_stdio() {
    let crews = Crews::new();
    let mut command = Command::new(python());
    command.arg(script("mcp_client.py")).arg("stdio").arg(env!("CARGO_BIN_EXE_crewgraph")).arg(crews.crews()).arg(crews.db());
    let db = crews.db();
    walk(command, || {
        let runs = cg_in(crews.dir.path(), &["runs", "--json", "--db", db.to_str().unwrap()]);
        let runs: Vec<Value> = runs.lines().iter().map(|l| parse(l)).collect();
        slow_status(&runs).as_deref() == Some("cancelled")
    });
}

/// `crewgraph serve --token` over the callers' crews, killed on drop.
struct Served {
    child: Child,
    base: String,
}

const TOKEN: &str = "a-token-for-the-callers";

impl Served {
    fn start(crews: &Crews) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crewgraph"))
            .args(["serve", "--addr", "127.0.0.1:0", "--token", TOKEN])
            .arg("--crews")
            .arg(crews.crews())
            .arg("--db")
            .arg(crews.db())
            .current_dir(crews.dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("crewgraph serve starts");
        let stdout = child.stdout.take().unwrap();
        let (lines, read) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let line = read.recv_timeout(LIMIT).expect("it says where it listens");
        let base = line.strip_prefix("crewgraph serve: listening on ").unwrap_or_else(|| panic!("unexpected: {line}")).to_owned();
        Served { child, base }
    }

    fn runs(&self) -> Vec<Value> {
        let url = format!("{}/runs", self.base);
        let answer = crate::support::block_on(async move {
            let response = reqwest::Client::new().get(url).bearer_auth(TOKEN).send().await.ok()?;
            response.json::<Value>().await.ok()
        });
        answer.and_then(|v| v.as_array().cloned()).unwrap_or_default()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
        }
        assert_no_panic(&stderr);
    }
}

#[test]
fn an_mcp_client_calls_crews_over_streamable_http() {
    let crews = Crews::new();
    let served = Served::start(&crews);
    let mut command = Command::new(python());
    command.arg(script("mcp_client.py")).arg("http").arg(format!("{}/mcp", served.base)).arg(TOKEN);
    walk(command, || slow_status(&served.runs()).as_deref() == Some("cancelled"));
}

#[test]
fn the_openai_sdk_uses_crews_as_models() {
    let crews = Crews::new();
    let served = Served::start(&crews);
    let mut command = Command::new(python());
    command.arg(script("openai_client.py")).arg(&served.base).arg(TOKEN);
    walk(command, || slow_status(&served.runs()).as_deref() == Some("cancelled"));
}

#[test]
fn a_streamed_answer_says_each_handoff_in_a_comment_line_and_ends_with_done() {
    let crews = Crews::new();
    let served = Served::start(&crews);
    let base = served.base.clone();
    let (status, text, unauthorized) = crate::support::block_on(async move {
        let http = reqwest::Client::new();
        let body = serde_json::json!({
            "model": "crew/exam",
            "stream": true,
            "messages": [{"role": "user", "content": "Start the exam"}],
            "crewgraph": {"model": "simulate"},
        });
        let response = http
            .post(format!("{base}/v1/chat/completions"))
            .bearer_auth(TOKEN)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        let unauthorized = http.post(format!("{base}/mcp")).body("{}").send().await.unwrap().status();
        (status, text, unauthorized)
    });
    assert_eq!(status, 200, "{text}");
    let comments: Vec<&str> = text.lines().filter(|l| l.starts_with(':') && l.contains('→')).collect();
    assert_eq!(comments.len(), 2, "a comment line per handoff: {text}");
    assert!(comments[0].contains("Teacher → ") && comments[0].contains(" because "), "{comments:?}");
    let data: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{text}");
    for chunk in &data[..data.len() - 1] {
        let chunk: Value = serde_json::from_str(chunk).unwrap();
        assert_eq!(chunk["object"], "chat.completion.chunk", "{chunk}");
    }
    assert_eq!(unauthorized, 401, "/mcp wants the token");
}

#[test]
fn a_crew_calls_another_crew_through_its_mcp_tool() {
    let crews = Crews::new();
    let desk = crews.dir.path().join("desk");
    std::fs::create_dir_all(desk.join("scripts")).unwrap();
    let crew = format!(
        r#"version: "1.0"
name: Desk
entry_point: clerk
tools:
  servers:
    crews:
      command: {binary}
      args: [mcp, --crews, {crews}, --db, {db}]
  policy:
    crews.exam: allow
agents:
  - id: clerk
    name: Clerk
    tools: [crews.exam]
    system_prompt: Ask the exam crew to run an exam, then say how it went.
routing:
  signals:
    clerk:
      - signal: "[DONE]"
        target: ""
"#,
        binary = env!("CARGO_BIN_EXE_crewgraph"),
        crews = crews.crews().display(),
        db = crews.dir.path().join("called.db").display(),
    );
    std::fs::write(desk.join("desk.yaml"), crew).unwrap();
    // The called exam takes a moment over its last reply, as a model would: its
    // progress notes are then well on their way before its answer.
    let exam_script = std::fs::read_to_string(crews.crews().join("scripts/exam.yaml")).unwrap();
    let slow_end = exam_script.replace(
        "- \"Both right: your score is 2/2. That is the end of the exam. [END_EXAM]\"",
        "- { content: \"Both right: your score is 2/2. That is the end of the exam. [END_EXAM]\", delay_ms: 300 }",
    );
    assert_ne!(slow_end, exam_script, "the exam's script still ends as this test expects");
    std::fs::write(crews.crews().join("scripts/exam.yaml"), slow_end).unwrap();
    let script = "replies:\n  clerk:\n    - { content: \"Asking the exam crew.\", tool_calls: [{ name: crews.exam, arguments: { input: \"Start the exam\", model: simulate } }] }\n    - \"The exam crew says it is over. [DONE]\"\n";
    std::fs::write(desk.join("scripts/desk.yaml"), script).unwrap();
    let db = crews.db();
    let run = cg_in(&desk, &["run", "desk.yaml", "--input", "go", "--script", "scripts/desk.yaml", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events: Vec<Value> = run.lines().iter().map(|l| parse(l)).collect();
    let result = events.iter().find(|e| e["type"] == "tool_result").unwrap_or_else(|| panic!("a tool result: {events:?}"));
    assert_eq!(result["name"], "crews.exam");
    assert!(result["result"].as_str().unwrap().contains("Both right"), "the called crew's final answer: {result}");
    let progress: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_progress").collect();
    assert_eq!(progress.len(), 2, "a progress event per handoff of the called crew: {events:?}");
    assert!(progress[0]["message"].as_str().unwrap().contains("Teacher → "), "{progress:?}");
    assert_eq!(events.last().unwrap()["status"], "terminated");
}
