//! Approval of tool calls (`docs/tools.md`, issue 17): a call of a tool whose policy
//! is `ask` stops the run `paused` until a person answers — allow once, allow for
//! the rest of the run, deny with a reason — through the API, the CLI
//! (`crewgraph approve`, `--approve-tools`) and HTTP (`POST /runs/{id}/approvals/{call_id}`),
//! with a `kill -9` of the server while the run waits. The tool is real: npm's
//! `server-filesystem` writing into a temp folder; the replies are scripted.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph::api::Api;
use crewgraph_engine::run::{Answer, EventKind, RunEvent, RunStatus, ToolDecision};
use crewgraph_engine::RunId;
use crewgraph_store::SqliteStore;
use serde_json::json;

use crate::support::{block_on, repo_root, run_in, scripted};

fn filesystem_server() -> String {
    let path = repo_root().join(".tools/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(path.exists(), "{} is missing: run scripts/install-mcp-servers.sh (make test does)", path.display());
    path.display().to_string()
}

/// A writer who writes two files through the filesystem server (`write_file` is not
/// read-only: it asks), with `policy` as the crew's `tools.policy` lines.
fn desk(folder: &Path, policy: &str) -> String {
    format!(
        r#"name: Writing desk
entry_point: writer
tools:
  servers:
    files:
      command: node
      args: ["{server}", "{folder}"]
{policy}
agents:
  - id: writer
    role: Writes the notes down
    tools: ["files.*"]
    is_terminal: true
"#,
        server = filesystem_server(),
        folder = folder.display(),
    )
}

fn script(folder: &Path) -> String {
    let (a, b) = (folder.join("a.md").display().to_string(), folder.join("b.md").display().to_string());
    format!(
        r#"replies:
  writer:
    - {{ content: "Writing a.", tool_calls: [{{ name: files.write_file, arguments: {{ path: "{a}", content: "A" }} }}] }}
    - {{ content: "Writing b.", tool_calls: [{{ name: files.write_file, arguments: {{ path: "{b}", content: "B" }} }}] }}
    - "Both written."
"#
    )
}

struct Desk {
    folder: std::path::PathBuf,
    _dir: tempfile::TempDir,
    api: Api,
    /// One runtime for every leg, as in the app (the tool server lives in it).
    runtime: tokio::runtime::Runtime,
}

impl Desk {
    fn new(policy: &str) -> Desk {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().canonicalize().unwrap();
        std::fs::write(folder.join("crew.yaml"), desk(&folder, policy)).unwrap();
        std::fs::write(folder.join("replies.yaml"), script(&folder)).unwrap();
        let api = Api::new(&folder).with_sqlite(Arc::new(SqliteStore::open(folder.join("crewgraph.db")).unwrap()));
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        Desk { folder, _dir: dir, api, runtime }
    }

    fn script(&self) -> String {
        self.folder.join("replies.yaml").display().to_string()
    }

    /// Starts the run and waits for its leg to end; its id.
    fn start(&self) -> RunId {
        self.runtime.block_on(async {
            let id = self.api.spawn_run(&self.folder.join("crew.yaml"), "Write the notes", scripted(&self.script())).await.unwrap();
            self.settle(&id).await;
            id
        })
    }

    async fn settle(&self, id: &RunId) {
        let mut watch = self.api.watch_run(id, None).await.unwrap();
        while watch.next().await.is_some() {}
    }

    fn answer(&self, id: &RunId, call_id: &str, decision: ToolDecision, reason: Option<&str>) {
        self.runtime.block_on(async {
            let answer = Answer { call_id: call_id.to_owned(), decision, reason: reason.map(str::to_owned) };
            self.api.spawn_answer(id, answer, scripted(&self.script())).await.unwrap();
            self.settle(id).await;
        })
    }

    fn events(&self, id: &RunId) -> Vec<RunEvent> {
        self.runtime.block_on(self.api.run_events(id, None)).unwrap()
    }

    fn status(&self, id: &RunId) -> RunStatus {
        self.runtime.block_on(self.api.run_summary(id)).unwrap().status
    }

    fn stop(&self) {
        self.runtime.block_on(self.api.stop_tool_servers());
    }
}

/// The call a run waits on: its id and tool.
fn waiting(events: &[RunEvent]) -> Option<(String, String)> {
    crewgraph_engine::run::approval::pending(events).map(|p| (p.call_id, p.name))
}

fn kinds(events: &[RunEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.kind.type_name()).collect()
}

#[test]
fn a_call_that_asks_waits_for_a_person_and_is_made_once_allowed() {
    let desk = Desk::new("");
    let id = desk.start();
    assert_eq!(desk.status(&id), RunStatus::Paused);
    let events = desk.events(&id);
    let (call_id, tool) = waiting(&events).expect("a call waits");
    assert_eq!(tool, "files.write_file");
    assert!(!desk.folder.join("a.md").exists(), "nothing is written before the person allows it");
    let tail = kinds(&events);
    assert_eq!(&tail[tail.len() - 3..], ["tool_call", "tool_approval_requested", "run_finished"]);
    let Some(EventKind::ToolApprovalRequested { arguments, agent, .. }) = events.iter().rev().nth(1).map(|e| &e.kind) else { panic!() };
    assert_eq!((agent.as_str(), &arguments["content"]), ("writer", &json!("A")));

    // A resume that does not answer it is refused, and so is an answer to another call.
    let plain = desk.runtime.block_on(desk.api.resume_run(
        &id,
        Some("go on"),
        &scripted(&desk.script()),
        Arc::new(crewgraph_engine::run::NullSink),
        &Default::default(),
    ));
    let refused = plain.unwrap_err();
    assert_eq!(refused.message, format!("run '{id}' waits for your approval of a call of files.write_file ({call_id}): allow or deny it"));
    let wrong = desk.runtime.block_on(desk.api.spawn_answer(
        &id,
        Answer { call_id: "call-99-0".into(), decision: ToolDecision::AllowOnce, reason: None },
        scripted(&desk.script()),
    ));
    let wrong = match wrong {
        Ok(_) => {
            desk.runtime.block_on(desk.settle(&id));
            panic!("an answer to a call the run does not wait on went through")
        }
        Err(error) => error,
    };
    assert_eq!(wrong.message, format!("run '{id}' does not wait for an approval of 'call-99-0' (it waits for {call_id})"));

    desk.answer(&id, &call_id, ToolDecision::AllowOnce, None);
    assert_eq!(std::fs::read_to_string(desk.folder.join("a.md")).unwrap(), "A");
    // The second write asks again (allowed once, not for the run).
    assert_eq!(desk.status(&id), RunStatus::Paused);
    let (second, _) = waiting(&desk.events(&id)).expect("the second call waits");
    assert_ne!(second, call_id);
    desk.answer(&id, &second, ToolDecision::Deny, Some("b.md is not needed"));
    assert_eq!(desk.status(&id), RunStatus::Completed, "{:#?}", &desk.events(&id)[desk.events(&id).len().saturating_sub(8)..]);
    assert!(!desk.folder.join("b.md").exists());
    let events = desk.events(&id);
    let results: Vec<&str> = events
        .iter()
        .filter_map(|e| if let EventKind::ToolResult { result, .. } = &e.kind { Some(result.as_str()) } else { None })
        .collect();
    assert_eq!(results.len(), 2);
    assert!(!results[0].starts_with("error"), "{}", results[0]);
    assert_eq!(results[1], "error: the call was not allowed (b.md is not needed)");
    let decisions: Vec<(ToolDecision, Option<String>)> = events
        .iter()
        .filter_map(
            |e| if let EventKind::ToolApproval { decision, reason, .. } = &e.kind { Some((*decision, reason.clone())) } else { None },
        )
        .collect();
    assert_eq!(decisions, [(ToolDecision::AllowOnce, None), (ToolDecision::Deny, Some("b.md is not needed".into()))]);
    // One turn: the approvals did not start new ones.
    assert_eq!(events.iter().filter(|e| e.kind.type_name() == "agent_started").count(), 1);
    desk.stop();
}

#[test]
fn allowed_for_the_run_a_tool_asks_no_more_and_policies_allow_or_refuse_without_asking() {
    let desk = Desk::new("");
    let id = desk.start();
    let (call_id, _) = waiting(&desk.events(&id)).unwrap();
    desk.answer(&id, &call_id, ToolDecision::AllowRun, None);
    assert_eq!(desk.status(&id), RunStatus::Completed, "{:?}", desk.events(&id).last());
    assert_eq!(std::fs::read_to_string(desk.folder.join("b.md")).unwrap(), "B");
    assert_eq!(desk.events(&id).iter().filter(|e| e.kind.type_name() == "tool_approval_requested").count(), 1);
    desk.stop();

    let allowed = Desk::new("  policy:\n    files.write_file: allow\n");
    let id = allowed.start();
    assert_eq!(allowed.status(&id), RunStatus::Completed);
    assert!(allowed.folder.join("a.md").exists() && allowed.folder.join("b.md").exists());
    allowed.stop();

    let refused = Desk::new("  policy:\n    files.*: deny\n");
    let id = refused.start();
    assert_eq!(refused.status(&id), RunStatus::Completed);
    assert!(!refused.folder.join("a.md").exists());
    let warnings: Vec<String> = refused
        .events(&id)
        .iter()
        .filter_map(|e| if let EventKind::Warning { message } = &e.kind { Some(message.clone()) } else { None })
        .collect();
    assert_eq!(warnings[0], "writer's call of files.write_file: this crew does not allow files.write_file to be called");
    refused.stop();
}

#[test]
fn the_cli_pauses_without_a_terminal_answers_with_approve_and_decides_with_approve_tools() {
    let desk = Desk::new("");
    let db = desk.folder.join("cli.db").display().to_string();
    let ran = run_in(&desk.folder, &["run", "crew.yaml", "--input", "Write", "--script", "replies.yaml", "--db", &db], "");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("? writer asks to call files.write_file"), "{}", ran.stdout);
    let hint = ran.stdout.lines().find(|l| l.contains("allow it: crewgraph approve")).expect("how to answer").trim().to_owned();
    let words: Vec<&str> = hint.split_whitespace().collect();
    let (run_id, call_id) = (words[4], words[5]);
    assert_eq!(&words[6..8], ["--script", "replies.yaml"], "the hint says where the replies come from: {hint}");
    assert!(!desk.folder.join("a.md").exists());
    let approved = run_in(&desk.folder, &["approve", run_id, call_id, "--allow-run", "--script", "replies.yaml", "--db", &db], "");
    assert_eq!(approved.code, 0, "{}\n{}", approved.stdout, approved.stderr);
    assert!(approved.stdout.contains("allowed for the rest of the run"), "{}", approved.stdout);
    assert!(approved.stdout.contains("■ completed"), "{}", approved.stdout);
    assert_eq!(std::fs::read_to_string(desk.folder.join("b.md")).unwrap(), "B");
    let again = run_in(&desk.folder, &["approve", run_id, call_id, "--db", &db], "");
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("has ended") || again.stderr.contains("cannot be resumed"), "{}", again.stderr);

    for (which, written, said) in [
        ("none", false, "denied by --approve-tools none"),
        ("all", true, "allowed by --approve-tools all"),
        ("read-only", false, "denied by --approve-tools read-only"),
    ] {
        std::fs::remove_file(desk.folder.join("a.md")).ok();
        let ran = run_in(
            &desk.folder,
            &["run", "crew.yaml", "--input", "Write", "--script", "replies.yaml", "--db", &db, "--approve-tools", which],
            "",
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert!(ran.stdout.contains(said), "{which}: {}", ran.stdout);
        assert!(ran.stdout.contains("■ completed"), "{which}: {}", ran.stdout);
        assert_eq!(desk.folder.join("a.md").exists(), written, "{which}");
    }
    desk.stop();
}

#[test]
fn a_run_waiting_for_approval_survives_a_kill_of_the_server_and_is_answered_over_http() {
    use crate::serve::process::spawn;
    use crate::serve::Fixture;
    let fixture = Fixture::new();
    let folder = fixture.crews().join("files");
    std::fs::create_dir(&folder).unwrap();
    let folder = folder.canonicalize().unwrap();
    std::fs::write(fixture.crews().join("desk.yaml"), desk(&folder, "")).unwrap();
    std::fs::write(fixture.crews().join("scripts/desk.yaml"), script(&folder)).unwrap();
    let (mut first, addr) = spawn(&fixture, &["--addr", "127.0.0.1:0"]);
    let http = Http { base: format!("http://{addr}"), client: reqwest::Client::new() };
    let (id, call_id) = block_on(async {
        let started = http.post("/runs", json!({"crew": "desk.yaml", "input": "Write", "script_file": "scripts/desk.yaml"})).await;
        let id = started.1["run_id"].as_str().expect("a run id").to_owned();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let events = http.get(&format!("/runs/{id}/events")).await.1;
            let asked = events.as_array().and_then(|all| all.iter().find(|e| e["type"] == "tool_approval_requested").cloned());
            let run = http.get(&format!("/runs/{id}")).await.1;
            if let (Some(asked), true) = (asked, run["run"]["status"] == "paused" && run["live"] == false) {
                break (id, asked["call_id"].as_str().unwrap().to_owned());
            }
            assert!(Instant::now() < deadline, "the run never waited for approval: {run}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    // kill -9: nothing is told to anyone.
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    let (_second, addr) = spawn(&fixture, &["--addr", "127.0.0.1:0"]);
    let http = Http { base: format!("http://{addr}"), client: reqwest::Client::new() };
    block_on(async {
        let answered = http
            .post(&format!("/runs/{id}/approvals/{call_id}"), json!({"decision": "allow_run", "script_file": "scripts/desk.yaml"}))
            .await;
        assert_eq!(answered.0, 202, "{}", answered.1);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let run = http.get(&format!("/runs/{id}")).await.1;
            if run["run"]["status"] == "completed" && run["live"] == false {
                break;
            }
            assert!(Instant::now() < deadline, "the run did not finish: {run}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let missing = http.post(&format!("/runs/{id}/approvals/call-1-0"), json!({"decision": "deny"})).await;
        assert_eq!(missing.0, 400, "{}", missing.1);
        let bad = http.post(&format!("/runs/{id}/approvals/call-1-0"), json!({"decision": "maybe"})).await;
        assert_eq!(bad.0, 400, "{}", bad.1);
    });
    assert_eq!(std::fs::read_to_string(folder.join("b.md")).unwrap(), "B");
}

/// A little HTTP client for one server.
struct Http {
    base: String,
    client: reqwest::Client,
}

impl Http {
    async fn get(&self, path: &str) -> (u16, serde_json::Value) {
        let response = self.client.get(format!("{}{path}", self.base)).header("accept", "application/json").send().await.unwrap();
        (response.status().as_u16(), serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or_default())
    }

    async fn post(&self, path: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(serde_json::to_vec(&body).unwrap())
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or_default())
    }
}
