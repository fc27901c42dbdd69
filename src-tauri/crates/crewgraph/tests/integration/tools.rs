//! Tools from MCP servers in runs (`docs/tools.md`, issue 17): a crew whose agents read
//! and write real files through npm's `server-filesystem`, in Simulate mode (the
//! script asks for the calls; the server does them for real); a tool the server does
//! not have and a server that cannot start, each failing the run in words; and the
//! secret a server's `env` names, which reaches the server and is found nowhere in
//! the database, the events, the logs or an exported recording.

use std::path::Path;
use std::sync::Arc;

use crewgraph::api::Api;
use crewgraph_engine::run::{EventKind, RunStatus};
use crewgraph_store::SqliteStore;

use crate::support::{block_on, repo_root, run_in, scripted};

/// The path of an installed test server's script, or a failure saying how to install it.
fn installed(package: &str) -> String {
    let path = repo_root().join(".tools/mcp/node_modules/@modelcontextprotocol").join(package).join("dist/index.js");
    assert!(path.exists(), "{} is missing: run scripts/install-mcp-servers.sh (make test does)", path.display());
    path.display().to_string()
}

/// A crew of a researcher who reads a file and a writer who writes the summary,
/// through the filesystem server allowed into `folder`; `reads` is the tool the
/// researcher lists.
fn desk(folder: &Path, reads: &str) -> String {
    format!(
        r#"name: File desk
entry_point: researcher
tools:
  servers:
    files:
      command: node
      args: ["{server}", "{folder}"]
      timeout: 30s
  policy:
    files.write_file: allow   # (approvals are tested in approvals.rs)
agents:
  - id: researcher
    role: Reads the notes
    tools: [{reads}]
  - id: writer
    role: Writes the summary
    tools: ["files.*"]
routing:
  signals:
    researcher:
      - {{ signal: "[NEXT]", target: writer }}
    writer:
      - {{ signal: "[DONE]", target: "" }}
"#,
        server = installed("server-filesystem"),
        folder = folder.display(),
    )
}

/// The script: the researcher reads `notes.txt`, the writer writes `summary.md`.
fn replies(folder: &Path) -> String {
    let notes = folder.join("notes.txt").display().to_string();
    let summary = folder.join("summary.md").display().to_string();
    format!(
        r#"replies:
  researcher:
    - {{ content: "Let me read the notes.", tool_calls: [{{ name: files.read_text_file, arguments: {{ path: "{notes}" }} }}] }}
    - "The notes say 1/2 + 1/4 = 3/4. [NEXT]"
  writer:
    - {{ content: "Writing it down.", tool_calls: [{{ name: files.write_file, arguments: {{ path: "{summary}", content: "Summary: 3/4" }} }}] }}
    - "Written. [DONE]"
"#
    )
}

struct Ran {
    status: RunStatus,
    error: Option<String>,
    events: Vec<EventKind>,
}

fn run(folder: &Path, crew: &str, script: &str) -> Ran {
    std::fs::write(folder.join("crew.yaml"), crew).unwrap();
    std::fs::write(folder.join("replies.yaml"), script).unwrap();
    let store = Arc::new(SqliteStore::open(folder.join("crewgraph.db")).unwrap());
    let api = Api::new(folder).with_sqlite(store);
    block_on(async {
        let script = folder.join("replies.yaml").display().to_string();
        let id = api.spawn_run(&folder.join("crew.yaml"), "Summarise the notes", scripted(&script)).await.unwrap();
        let mut watch = api.watch_run(&id, None).await.unwrap();
        while watch.next().await.is_some() {}
        let events: Vec<EventKind> = api.run_events(&id, None).await.unwrap().into_iter().map(|e| e.kind).collect();
        api.stop_tool_servers().await;
        let Some(EventKind::RunFinished { status, error, .. }) = events.last().cloned() else { panic!("no end: {events:?}") };
        Ran { status, error, events }
    })
}

#[test]
fn a_crew_reads_and_writes_real_files_through_a_tool_server_in_simulate() {
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().canonicalize().unwrap();
    std::fs::write(folder.join("notes.txt"), "1/2 + 1/4 = 3/4\n").unwrap();
    let ran = run(&folder, &desk(&folder, "files.read_text_file"), &replies(&folder));
    assert_eq!(ran.status, RunStatus::Terminated, "{:?}", ran.error);
    let calls: Vec<&str> =
        ran.events.iter().filter_map(|e| if let EventKind::ToolCall { name, .. } = e { Some(name.as_str()) } else { None }).collect();
    assert_eq!(calls, ["files.read_text_file", "files.write_file"]);
    let results: Vec<&str> =
        ran.events.iter().filter_map(|e| if let EventKind::ToolResult { result, .. } = e { Some(result.as_str()) } else { None }).collect();
    assert_eq!(results[0].trim(), "1/2 + 1/4 = 3/4", "the file's real text");
    assert!(!results[1].starts_with("error"), "{}", results[1]);
    assert_eq!(std::fs::read_to_string(folder.join("summary.md")).unwrap(), "Summary: 3/4");
    assert!(!ran.events.iter().any(|e| matches!(e, EventKind::Warning { .. })), "{:?}", ran.events);
    // The server's standard error went to its log beside the database, not into events.
    assert!(folder.join("tool-logs/files.log").exists());
}

#[test]
fn a_tool_outside_the_folder_or_not_listed_answers_the_agent_with_an_error_and_the_run_goes_on() {
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().canonicalize().unwrap();
    let script = r#"replies:
  researcher:
    - { content: "Reading.", tool_calls: [{ name: files.read_text_file, arguments: { path: "/etc/hostname" } }] }
    - { content: "Writing.", tool_calls: [{ name: files.write_file, arguments: { path: "x", content: "y" } }] }
    - "Nothing to read. [NEXT]"
  writer: ["Nothing to write. [DONE]"]
"#;
    let ran = run(&folder, &desk(&folder, "files.read_text_file"), script);
    assert_eq!(ran.status, RunStatus::Terminated, "{:?}", ran.error);
    let warnings: Vec<&str> =
        ran.events.iter().filter_map(|e| if let EventKind::Warning { message } = e { Some(message.as_str()) } else { None }).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("researcher's call of files.read_text_file: files.read_text_file failed: "), "{}", warnings[0]);
    assert!(warnings[0].to_lowercase().contains("access denied"), "{}", warnings[0]);
    assert_eq!(warnings[1], "researcher's call of files.write_file: unknown tool 'files.write_file': agent 'researcher' has no such tool");
}

#[test]
fn a_tool_the_server_does_not_have_or_a_server_that_cannot_start_fails_the_run_in_words() {
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().canonicalize().unwrap();
    let ran = run(&folder, &desk(&folder, "files.read_txt_file"), &replies(&folder));
    assert_eq!(ran.status, RunStatus::Failed);
    let error = ran.error.unwrap();
    assert!(
        error.starts_with("agent 'researcher': researcher uses files.read_txt_file, but the tool server 'files' has no tool called 'read_txt_file' (it has: "),
        "{error}"
    );
    assert!(error.contains("read_text_file"), "{error}");

    let broken = desk(&folder, "files.read_text_file").replace("command: node", "command: no-such-node-7f2");
    let ran = run(&folder, &broken, &replies(&folder));
    assert_eq!(ran.status, RunStatus::Failed);
    assert_eq!(
        ran.error.unwrap(),
        "agent 'researcher': the tool server 'files' could not start: the command 'no-such-node-7f2' was not found (is it installed?)"
    );
}

#[test]
fn a_secret_a_server_names_reaches_it_and_is_found_nowhere_else() {
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().canonicalize().unwrap();
    let secret = "mcp-secret-4b7e-do-not-store";
    let crew = format!(
        r#"name: Secret desk
entry_point: agent
tools:
  servers:
    everything:
      command: node
      args: ["{server}", "stdio"]
      env:
        SERVICE_TOKEN: {{ key: CREWGRAPH_TEST_MCP_SECRET_9a1 }}
agents:
  - id: agent
    role: Looks at its server's environment
    tools: ["everything.get-env"]
    is_terminal: true
"#,
        server = installed("server-everything")
    );
    let script = r#"replies:
  agent:
    - { content: "Looking.", tool_calls: [{ name: everything.get-env, arguments: {} }] }
    - "Seen."
"#;
    std::fs::write(folder.join("crew.yaml"), crew).unwrap();
    std::fs::write(folder.join("replies.yaml"), script).unwrap();
    let db = folder.join("crewgraph.db");
    let args = ["run", "crew.yaml", "--input", "Look", "--script", "replies.yaml", "--json", "--db", db.to_str().unwrap()];
    let output = crate::support::crewgraph()
        .current_dir(&folder)
        .args(args)
        .env("CREWGRAPH_TEST_MCP_SECRET_9a1", secret)
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("SERVICE_TOKEN") && stdout.contains("[hidden]"), "the server had the variable: {stdout}");
    let run_id = stdout.lines().next().and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok()).unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let replayed = run_in(&folder, &["replay", &run_id, "--json", "--db", db.to_str().unwrap()], "");
    assert!(replayed.stdout.contains("[hidden]"), "{}", replayed.stdout);
    let api = Api::new(&folder).with_sqlite(Arc::new(SqliteStore::open(&db).unwrap()));
    block_on(api.export_run(&crewgraph_engine::RunId::from(run_id.as_str()), &folder.join("run.json"))).unwrap();
    let mut looked = vec![replayed.stdout, replayed.stderr];
    looked.extend([stdout.to_string(), stderr.to_string()]);
    for entry in walk(&folder) {
        looked.push(String::from_utf8_lossy(&std::fs::read(entry).unwrap()).into_owned());
    }
    for text in &looked {
        assert!(!text.contains(secret), "the secret was found: {}", &text[..text.len().min(400)]);
    }
}

/// Every file under `dir` (the database and its journal, logs, exports).
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            files.extend(walk(&entry.path()));
        } else {
            files.push(entry.path());
        }
    }
    files
}

#[test]
fn the_pickers_listing_starts_a_crews_server_in_its_folder_and_validation_then_knows_its_tools() {
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().canonicalize().unwrap();
    std::fs::create_dir(folder.join("notes")).unwrap();
    std::fs::write(folder.join("notes/a.md"), "alpha").unwrap();
    // A relative folder: the server starts in the crew's folder, wherever the app was started.
    let crew = format!(
        "name: Desk\nentry_point: a\nagents:\n  - id: a\n    is_terminal: true\n    tools: [files.list_directory, files.list_directry]\n\
         tools:\n  servers:\n    files:\n      command: node\n      args: [{}, notes]\n",
        installed("server-filesystem")
    );
    std::fs::write(folder.join("desk.yaml"), &crew).unwrap();
    let api = Api::new(&folder);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        // Not running yet: nothing is started to validate, so only the run would tell.
        assert!(api.validate_crew(&folder.join("desk.yaml")).await.unwrap().valid);
        let own = serde_json::json!({"files": {"command": "node", "args": [installed("server-filesystem"), "notes"]}});
        let listed = api.crew_tools(Some(own), Some(&folder.join("desk.yaml"))).await.unwrap();
        assert_eq!(listed[0].error, None, "the server found its folder beside the crew");
        assert!(listed[0].tools.iter().any(|t| t.name == "files.list_directory"), "{:?}", listed[0].tools);
        let validation = api.validate_crew(&folder.join("desk.yaml")).await.unwrap();
        assert!(!validation.valid);
        let error = validation.diagnostics.iter().find(|d| d.is_error()).unwrap();
        assert_eq!(error.location.as_ref().map(|l| (l.line, l.column)), Some((6, 35)));
        assert!(error
            .plain
            .starts_with("a uses the tool 'files.list_directry', but the tool server 'files' has no tool called 'list_directry'"));
        api.stop_tool_servers().await;
    });
}

#[test]
fn app_wide_servers_are_kept_checked_imported_listed_for_the_picker_and_used_by_runs() {
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().canonicalize().unwrap();
    let api = Api::new(&folder).with_sqlite(Arc::new(SqliteStore::open(folder.join("crewgraph.db")).unwrap()));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let everything = serde_json::json!({"command": "node", "args": [installed("server-everything"), "stdio"]});
        let view = api.put_tool_server("everything", everything.clone()).await.unwrap();
        assert!(view.summary.starts_with("node ") && view.summary.ends_with(" stdio"), "{}", view.summary);
        // A declaration a crew file could not hold is refused in words.
        let both = api.put_tool_server("both", serde_json::json!({"command": "x", "url": "https://x.org/mcp"})).await.unwrap_err();
        assert_eq!(both.message, "The tool server 'both' has both a command to start and a web address. Keep the one it is.");
        let named = api.put_tool_server("a b", serde_json::json!({"command": "x"})).await.unwrap_err();
        assert!(named.message.contains("letters, digits"), "{}", named.message);
        assert_eq!(api.tool_servers().await.unwrap().iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["everything"]);

        let check = api.check_tool_server("everything").await.unwrap();
        assert!(check.running, "{:?}", check.error);
        assert!(check.tools.iter().any(|t| t.name == "everything.echo"), "{:?}", check.tools);
        assert!(check.log.as_deref().is_some_and(|l| l.ends_with("tool-logs/everything.log")), "{:?}", check.log);

        // The picker: the crew's own servers, then the app's; a server that cannot start says why.
        let own = serde_json::json!({"broken": {"command": "no-such-server-3c1"}});
        let listed = api.crew_tools(Some(own), None).await.unwrap();
        assert_eq!(
            listed.iter().map(|s| (s.server.as_str(), s.origin.as_str())).collect::<Vec<_>>(),
            [("broken", "crew"), ("everything", "app")]
        );
        assert!(listed[0].error.as_deref().unwrap().contains("was not found"), "{:?}", listed[0].error);
        assert!(listed[1].tools.iter().any(|t| t.name == "everything.get-sum"));

        // The app's server runs and has listed its tools: a crew naming one it lacks is
        // an error at that line:col, not only a run that fails at the agent's turn.
        let typo = "name: Typo\nentry_point: a\nagents:\n  - id: a\n    is_terminal: true\n    tools: [everything.echo, everything.ech0]\n";
        std::fs::write(folder.join("typo.yaml"), typo).unwrap();
        let validation = api.validate_crew(&folder.join("typo.yaml")).await.unwrap();
        let errors: Vec<String> = validation
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{}:{} {}", d.location.as_ref().unwrap().line, d.location.as_ref().unwrap().column, d.message))
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with(
                "6:30 agent 'a' uses tool 'everything.ech0', but the tool server 'everything' has no tool called 'ech0' (it has: "
            ),
            "{errors:?}"
        );
        assert!(errors[0].contains("echo, "), "it names the tools it has: {errors:?}");

        // Import: the literal env value goes to the keyring when one is reachable, else
        // the person is told which variable to set; the stored server names a key.
        let text = r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ_TOKEN": "literal-value-91"}},
                        "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}"#;
        let imported = api.import_tool_servers(text).await.unwrap();
        assert_eq!(imported.added, ["time"]);
        assert!(imported.notes.iter().any(|n| n.starts_with("time: the environment variable TZ_TOKEN")), "{:?}", imported.notes);
        assert!(imported.notes.iter().any(|n| n.starts_with("old was left out: it uses the old SSE transport")), "{:?}", imported.notes);
        let stored = api.tool_servers().await.unwrap();
        let time = stored.iter().find(|s| s.name == "time").unwrap();
        assert_eq!(time.spec["env"]["TZ_TOKEN"], serde_json::json!({"key": "mcp-time-tz-token"}));
        let db = std::fs::read(folder.join("crewgraph.db")).unwrap();
        assert!(!String::from_utf8_lossy(&db).contains("literal-value-91"), "no secret in the database");
        assert!(api.import_tool_servers("{}").await.unwrap_err().message.contains("mcpServers"));
        assert!(api.remove_tool_server("time").await.unwrap());
        assert!(!api.remove_tool_server("time").await.unwrap());
        api.stop_tool_servers().await;
    });

    // A run of a crew that declares no server uses the app's.
    let crew = "name: Echo desk\nentry_point: a\nagents:\n  - { id: a, tools: [everything.echo], is_terminal: true }\n";
    let script =
        "replies:\n  a:\n    - { content: Echo, tool_calls: [{ name: everything.echo, arguments: { message: hi } }] }\n    - Done.\n";
    std::fs::write(folder.join("crew.yaml"), crew).unwrap();
    std::fs::write(folder.join("replies.yaml"), script).unwrap();
    runtime.block_on(async {
        let script = folder.join("replies.yaml").display().to_string();
        let id = api.spawn_run(&folder.join("crew.yaml"), "Echo", scripted(&script)).await.unwrap();
        let mut watch = api.watch_run(&id, None).await.unwrap();
        while watch.next().await.is_some() {}
        let events = api.run_events(&id, None).await.unwrap();
        let result =
            events.iter().find_map(|e| if let EventKind::ToolResult { result, .. } = &e.kind { Some(result.clone()) } else { None });
        assert_eq!(result.as_deref(), Some("Echo: hi"), "{events:?}");
        // Its tool is no unknown tool to the crew's validation, with the server in Settings.
        let validation = api.validate_crew(&folder.join("crew.yaml")).await.unwrap();
        assert_eq!(validation.warnings, 0, "{:?}", validation.diagnostics);
        api.remove_tool_server("everything").await.unwrap();
        let validation = api.validate_crew(&folder.join("crew.yaml")).await.unwrap();
        assert_eq!(validation.warnings, 1, "without it, the tool is unknown: {:?}", validation.diagnostics);
        api.stop_tool_servers().await;
    });
}
