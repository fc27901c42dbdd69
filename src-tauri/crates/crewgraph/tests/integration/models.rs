//! Real models through the binary (issue 8): a crew runs on the local model when no
//! model is configured, and says so; `crewgraph models` adds, lists, checks and
//! removes models, refusing bad ones clearly; `--model` picks one for a run; an
//! agent whose primary model fails goes on with its backup; and an
//! API key reaches the provider but never the database, the events or the output —
//! not even when the provider echoes it back in an error. An `llm` router whose
//! model answers malformed JSON over HTTP is asked again once, then the run fails
//! with both answers kept.
//!
//! The local model is the real one (llama-server with SmolLM2, set up by
//! `scripts/setup-local-model.sh`); the OpenAI-compatible server of the key tests is
//! a small HTTP server on 127.0.0.1 that answers what the test tells it to.

use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use crate::e2e::{kind, parse, Sandbox};

/// Two agents: the asker hands over with [NEXT] or ends with [DONE]; the finisher ends the run.
const TWO_STEP_CREW: &str = r#"version: "1.0"
name: Two steps
entry_point: asker
agents:
  - { id: asker, system_prompt: "Ask the finisher to say hello to the person." }
  - { id: finisher, system_prompt: "Say hello to the person in one sentence.", is_terminal: true }
routing:
  signals:
    asker:
      - { signal: "[NEXT]", target: finisher }
      - { signal: "[DONE]", target: "" }
"#;

#[test]
fn a_crew_runs_on_the_local_model_when_none_is_configured_and_every_reply_ends_with_a_signal() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("crew.yaml", TWO_STEP_CREW);
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "Greet me", "--json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let lines = run.lines();
    let notice = lines.iter().find(|l| kind(l) == "warning").map(|l| parse(l)).expect("the run says which model it uses");
    assert!(notice["message"].as_str().unwrap().contains("every agent runs on the local model SmolLM2"), "{notice}");
    let asker_reply =
        lines.iter().map(|l| parse(l)).find(|e| e["type"] == "agent_response" && e["agent"] == "asker").expect("the asker replied");
    let text = asker_reply["content"].as_str().unwrap().trim_end();
    assert!(text.ends_with("[NEXT]") || text.ends_with("[DONE]"), "the local model ends with a signal: {text:?}");
    let usage = &asker_reply["usage"];
    assert!(
        usage["input_tokens"].as_u64() > Some(0) && usage["output_tokens"].as_u64() > Some(0),
        "the server's usage is kept: {asker_reply}"
    );
    assert!(lines.iter().any(|l| kind(l) == "signal_matched"), "the signal routed the run");
    assert!(lines.iter().any(|l| kind(l) == "token"), "the reply streamed");
    let last = parse(lines.last().unwrap());
    assert!(matches!(last["status"].as_str(), Some("completed" | "terminated")), "{last}");
    let listed = sandbox.cg(&["runs", "--json"]);
    let summary = parse(listed.lines()[0]);
    let reported: u64 = lines
        .iter()
        .map(|l| parse(l))
        .filter(|e| e["type"] == "agent_response")
        .map(|e| e["usage"]["output_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(summary["tokens"]["output_tokens"].as_u64(), Some(reported), "the run's total is its replies' usage: {summary}");
}

#[test]
fn models_are_added_listed_made_default_and_removed_and_bad_ones_are_refused() {
    let sandbox = Sandbox::new();
    let listed = sandbox.cg(&["models", "--json"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let local = parse(listed.lines()[0]);
    assert_eq!((local["name"].as_str(), local["default"].as_bool(), local["reachable"].as_bool()), (Some("local"), Some(true), Some(true)));

    let added = sandbox.cg(&["models", "add", "fast", "--provider", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]);
    assert_eq!(added.code, 0, "{}", added.stderr);
    let listed = sandbox.cg(&["models", "--json"]);
    assert_eq!(listed.code, 1, "the default model does not answer, so the listing exits 1");
    let fast = parse(listed.lines()[1]);
    assert_eq!((fast["name"].as_str(), fast["default"].as_bool(), fast["reachable"].as_bool()), (Some("fast"), Some(true), Some(false)));
    assert!(fast["problem"].as_str().unwrap().contains("127.0.0.1:9"), "{fast}");

    assert_eq!(sandbox.cg(&["models", "default", "local"]).code, 0);
    assert_eq!(sandbox.cg(&["models", "--json"]).code, 0, "the local default answers");

    for (args, message) in [
        (vec!["models", "add", "x", "--provider", "acme", "--model", "m"], "unknown provider 'acme'"),
        (vec!["models", "add", "x", "--provider", "openai"], "needs the provider's model name"),
        (
            vec!["models", "add", "x", "--provider", "openai", "--model", "m", "--base-url", "ftp://h"],
            "must start with http:// or https://",
        ),
        (vec!["models", "add", "local", "--provider", "openai", "--model", "m"], "'local' is the built-in local model"),
        (vec!["models", "add", "a b", "--provider", "openai", "--model", "m"], "may hold only letters"),
        (vec!["models", "remove", "nosuch"], "no model named 'nosuch' is configured"),
        (vec!["models", "default", "nosuch"], "no model named 'nosuch' is configured (configured: local, fast)"),
    ] {
        let refused = sandbox.cg(&args);
        assert_eq!(refused.code, 1, "{args:?}");
        assert!(refused.stderr.contains(message), "{args:?}: {}", refused.stderr);
    }

    assert_eq!(sandbox.cg(&["models", "remove", "fast"]).code, 0);
    assert_eq!(sandbox.cg(&["models", "--json"]).lines().len(), 1);
}

#[test]
fn a_run_with_an_unknown_model_fails_before_it_starts_naming_the_configured_ones() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("crew.yaml", TWO_STEP_CREW);
    assert_eq!(sandbox.cg(&["models", "add", "fast", "--provider", "openai", "--model", "m"]).code, 0);
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "hi", "--model", "gpt5"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("no model named 'gpt5' is configured (configured: fast)"), "{}", run.stderr);
    assert!(sandbox.runs().is_empty(), "nothing was stored");
}

/// What the fake provider answers each request with, given its head and body.
type Answer = fn(&str, &str) -> String;

/// An OpenAI-compatible server on 127.0.0.1 that records each request's head and
/// answers with `answer(head)`.
fn fake_provider(answer: Answer) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (head, body) = crate::support::read_request(&stream);
            let response = answer(&head, &String::from_utf8_lossy(&body));
            log.lock().unwrap().push(head);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    (url, seen)
}

fn streamed_reply(_head: &str, _body: &str) -> String {
    stream_of(&["Hello there. ", "[NEXT]"])
}

/// A 200 streaming `pieces` as chat-completion chunks.
fn stream_of(pieces: &[&str]) -> String {
    let chunk = |text: &str| format!("data: {}\n\n", serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]}));
    let body = [
        pieces.iter().map(|p| chunk(p)).collect::<String>(),
        format!("data: {}\n\n", serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
        format!("data: {}\n\n", serde_json::json!({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}})),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n{body}")
}

fn key_echoed_in_a_401(head: &str, _body: &str) -> String {
    let key = head
        .lines()
        .find_map(|l| l.strip_prefix("authorization: Bearer ").or_else(|| l.strip_prefix("Authorization: Bearer ")))
        .unwrap_or("");
    let body = serde_json::json!({"error": {"message": format!("Incorrect API key provided: {}", key.trim())}}).to_string();
    format!(
        "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

const SECRET: &str = "sk-test-4c0ffee-never-stored-0123456789";

/// Every byte a run left behind: the database files and what the binary printed.
fn everything_written(sandbox: &Sandbox, printed: &[&str]) -> Vec<u8> {
    let mut all: Vec<u8> = printed.concat().into_bytes();
    for entry in std::fs::read_dir(sandbox.dir.path()).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with("runs.db") {
            all.extend(std::fs::read(entry.path()).unwrap());
        }
    }
    all
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn the_api_key_reaches_the_provider_and_nothing_else() {
    for (answer, ok) in [(streamed_reply as Answer, true), (key_echoed_in_a_401 as Answer, false)] {
        let sandbox = Sandbox::new();
        let (url, seen) = fake_provider(answer);
        let crew = sandbox.write("crew.yaml", TWO_STEP_CREW);
        let added = sandbox.cg(&[
            "models",
            "add",
            "default",
            "--provider",
            "openai",
            "--model",
            "test-model",
            "--base-url",
            &url,
            "--input-price",
            "2",
            "--output-price",
            "8",
        ]);
        assert_eq!(added.code, 0, "{}", added.stderr);
        let db = sandbox.db();
        let output = crate::support::crewgraph()
            .current_dir(sandbox.dir.path())
            .env("OPENAI_API_KEY", SECRET)
            .args(["run", crew.to_str().unwrap(), "--input", "Greet me", "--json", "--db", db.to_str().unwrap()])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert_eq!(output.status.success(), ok, "{stdout}\n{stderr}");
        let heads = seen.lock().unwrap().clone();
        assert!(heads.iter().any(|h| h.contains(&format!("Bearer {SECRET}"))), "the key was sent to the provider: {heads:?}");
        if ok {
            assert!(stdout.contains(r#""type":"signal_matched""#), "{stdout}");
            let reply = stdout.lines().map(parse).find(|e| e["type"] == "agent_response").expect("a reply");
            let usage = &reply["usage"];
            assert_eq!(
                (usage["input_tokens"].as_u64(), usage["output_tokens"].as_u64()),
                (Some(7), Some(3)),
                "the provider's usage: {reply}"
            );
            let cost = usage["cost_usd"].as_f64().expect("priced: the reply says what it cost");
            assert!((cost - (7.0 * 2.0 + 3.0 * 8.0) / 1e6).abs() < 1e-12, "7 tokens in at $2/M and 3 out at $8/M: {cost}");
        } else {
            assert!(stderr.contains("the API key was refused (401)") && stderr.contains("Check your key"), "{stderr}");
            assert!(stderr.contains("Incorrect API key provided: [hidden]"), "{stderr}");
        }
        let id = parse(stdout.lines().next().unwrap())["run_id"].as_str().unwrap().to_owned();
        let replay = sandbox.cg(&["replay", &id, "--json"]);
        let written = everything_written(&sandbox, &[&stdout, &stderr, &replay.stdout, &replay.stderr]);
        assert!(!contains(&written, SECRET), "the key leaked into the database, the events or the output");
        assert!(!contains(&written, &SECRET[8..]), "a part of the key leaked");
    }
}

/// Fails every call to the model named `broken`; answers the others with "Done".
struct BrokenPrimary;

#[async_trait::async_trait]
impl crewgraph_engine::run::LlmClient for BrokenPrimary {
    async fn complete(
        &self,
        request: &crewgraph_engine::run::LlmRequest<'_>,
        _on_token: crewgraph_engine::run::TokenSink<'_>,
        _cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<crewgraph_engine::run::LlmReply, crewgraph_engine::run::LlmError> {
        match request.model.and_then(|m| m.model.as_deref()) {
            Some("broken") => Err(crewgraph_engine::run::LlmError::Failed("openai at x: 503 Service Unavailable: down".into())),
            _ => Ok(crewgraph_engine::run::LlmReply { content: "Done".into(), ..Default::default() }),
        }
    }
}

#[tokio::test]
async fn an_agent_whose_primary_model_fails_goes_on_with_its_backup_and_says_so() {
    let crew = crate::runner::crew(
        r#"version: "1.0"
entry_point: a
agents:
  - id: a
    primary: { model: broken, provider: openai }
    backup: { model: spare, provider: openai, provider_url: "http://127.0.0.1:9/v1" }
    is_terminal: true
"#,
    );
    let (deps, _, sink) = crate::runner::deps_with(Arc::new(BrokenPrimary));
    let cancel = tokio_util::sync::CancellationToken::new();
    let outcome = crewgraph_engine::run::start_run(&crew, &Default::default(), "go", &deps, &cancel).await.unwrap();
    assert_eq!(outcome.status.as_str(), "completed", "{:?}", outcome.error);
    let warnings: Vec<String> = sink
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            crewgraph_engine::run::EventKind::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        warnings,
        ["a's model failed (openai at x: 503 Service Unavailable: down); trying its backup model openai/spare at http://127.0.0.1:9/v1"]
    );
}

/// The router (asked with the `route_decision` schema) answers garbage; agents answer text.
fn a_router_that_answers_garbage(_head: &str, body: &str) -> String {
    if body.contains("route_decision") {
        stream_of(&["{\"workflow_complete\": maybe"])
    } else {
        stream_of(&["Here is my part."])
    }
}

#[test]
fn an_llm_router_that_answers_malformed_json_over_http_is_asked_again_then_the_run_fails_with_its_answer() {
    let sandbox = Sandbox::new();
    let (url, seen) = fake_provider(a_router_that_answers_garbage);
    let crew = sandbox.write(
        "crew.yaml",
        "version: \"1.0\"\nentry_point: writer\nagents:\n  - { id: writer }\n  - { id: editor }\nrouting:\n  strategy: llm\n",
    );
    assert_eq!(sandbox.cg(&["models", "add", "default", "--provider", "openai", "--model", "m", "--base-url", &url]).code, 0);
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "Write a note", "--json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let events: Vec<serde_json::Value> = run.lines().into_iter().map(parse).collect();
    let warnings: Vec<&str> = events.iter().filter(|e| e["type"] == "warning").map(|e| e["message"].as_str().unwrap()).collect();
    assert_eq!(warnings.len(), 2, "each refused answer is kept: {warnings:?}");
    assert!(warnings.iter().all(|w| w.contains("{\"workflow_complete\": maybe")), "{warnings:?}");
    let last = events.last().unwrap();
    assert_eq!(last["status"], "failed");
    // Only chat completions count (the model's server is also asked about its window, once).
    let chats = seen.lock().unwrap().iter().filter(|head| head.starts_with("POST") && head.contains("/chat/completions")).count();
    assert_eq!(chats - 1, 2, "the router was asked twice, over HTTP");
}

/// A llama-server of our own on a free port (the local model's files), for as long as
/// the returned guard lives.
fn llama_server() -> (tokio::runtime::Runtime, crewgraph_llm::LocalServer) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let paths = crewgraph_llm::LocalPaths::find().unwrap_or_else(|e| panic!("{e}"));
    let server = runtime.block_on(crewgraph_llm::LocalServer::start(&paths, 1)).unwrap_or_else(|e| panic!("{e}"));
    (runtime, server)
}

#[test]
fn discovery_lists_a_running_llama_server_and_a_check_says_what_its_model_can_do() {
    let sandbox = Sandbox::new();
    let (_runtime, server) = llama_server();
    let address = server.base_url.trim_start_matches("http://").to_owned();
    let found = sandbox.cg(&["models", "discover", "--address", &address, "--json"]);
    assert_eq!(found.code, 0, "{}", found.stderr);
    let found = parse(found.lines()[0]);
    assert_eq!(found["kind"], "llama.cpp");
    assert_eq!(found["base_url"], format!("{}/v1", server.base_url));
    let model = found["models"][0].as_str().expect("the server lists its model").to_owned();
    let said = sandbox.cg(&["models", "discover", "--address", &address]);
    assert!(said.stdout.starts_with(&format!("llama.cpp at {}/v1\n  {model}\n", server.base_url)), "{}", said.stdout);

    let base = format!("{}/v1", server.base_url);
    assert_eq!(sandbox.cg(&["models", "add", "here", "--provider", "openai", "--model", &model, "--base-url", &base]).code, 0);
    let checked = sandbox.cg(&["models", "check", "here", "--json"]);
    assert_eq!(checked.code, 0, "{}\n{}", checked.stdout, checked.stderr);
    let check = parse(checked.lines()[0]);
    assert_eq!(check["answers"], true, "{check}");
    assert_eq!(check["context_source"], "reported by llama.cpp", "{check}");
    assert!(check["context_window"].as_u64() >= Some(4096), "SmolLM2 was trained for 8,192 tokens: {check}");
    assert_eq!(
        (check["streaming"].as_bool(), check["tools"].as_bool(), check["structured"].as_bool()),
        (Some(true), Some(false), Some(true))
    );
    let listed = sandbox.cg(&["models", "--json"]);
    let here = listed.lines().into_iter().map(parse).find(|m| m["name"] == "here").expect("the model is listed");
    assert_eq!(here["check"]["answers"], true, "the check is kept with the model: {here}");
    let words = sandbox.cg(&["models", "check", "here"]);
    assert!(words.stdout.contains("context window") && words.stdout.contains("tool calling       no"), "{}", words.stdout);

    // A model whose server is gone: the check says so, in words, and exits 1.
    assert_eq!(
        sandbox.cg(&["models", "add", "gone", "--provider", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]).code,
        0
    );
    let gone = sandbox.cg(&["models", "check", "gone"]);
    assert_eq!(gone.code, 1);
    assert!(gone.stdout.contains("gone: does not answer") && gone.stdout.contains("nothing answers at 127.0.0.1:9"), "{}", gone.stdout);
}

/// llama-server with the local model's files, started with `extra` arguments on a
/// free port and killed when dropped; its base URL once it says it is healthy.
struct PlainServer(std::process::Child, String);

impl PlainServer {
    fn start(extra: &[&str]) -> PlainServer {
        let paths = crewgraph_llm::LocalPaths::find().unwrap_or_else(|e| panic!("{e}"));
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
        let child = std::process::Command::new(&paths.server)
            .args([
                "-m",
                paths.model.to_str().unwrap(),
                "--host",
                "127.0.0.1",
                "--port",
                &port,
                "-c",
                "4096",
                "--threads",
                "1",
                "--no-webui",
            ])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("llama-server starts");
        let server = PlainServer(child, format!("http://127.0.0.1:{port}"));
        let started = std::time::Instant::now();
        loop {
            let health = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).ok().and_then(|mut stream| {
                stream.write_all(b"GET /health HTTP/1.0\r\n\r\n").ok()?;
                let mut answer = String::new();
                std::io::Read::read_to_string(&mut stream, &mut answer).ok()?;
                Some(answer)
            });
            if health.is_some_and(|answer| answer.starts_with("HTTP/1.1 200")) {
                return server;
            }
            assert!(started.elapsed() < std::time::Duration::from_secs(180), "llama-server did not become healthy");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for PlainServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_server_that_refuses_tools_gets_them_through_structured_output_and_the_check_says_so() {
    // llama.cpp without its Jinja templates refuses `tools` ("tools param requires
    // --jinja flag", with a 500): the client offers them as a JSON schema instead,
    // once, and a real tool server answers the call the model writes.
    let sandbox = Sandbox::new();
    let server = PlainServer::start(&["--no-jinja"]);
    let base = format!("{}/v1", server.1);
    assert_eq!(sandbox.cg(&["models", "add", "plain", "--provider", "openai", "--model", "local", "--base-url", &base]).code, 0);
    let checked = sandbox.cg(&["models", "check", "plain", "--json"]);
    assert_eq!(checked.code, 0, "{}\n{}", checked.stdout, checked.stderr);
    let check = parse(checked.lines()[0]);
    assert_eq!(
        (check["answers"].as_bool(), check["tools"].as_bool(), check["tool_json"].as_bool()),
        (Some(true), Some(true), Some(true)),
        "{check}"
    );
    let words = sandbox.cg(&["models", "check", "plain"]);
    assert!(words.stdout.contains("tool calling       yes, through structured output"), "{}", words.stdout);

    let time = crate::support::repo_root().join(".tools/mcp/venv/bin/mcp-server-time");
    assert!(time.exists(), "{} is missing: run scripts/install-mcp-servers.sh (make test does)", time.display());
    let crew = format!(
        "name: Clock desk\nentry_point: clock\ntools:\n  servers:\n    clock:\n      command: {}\n      args: [--local-timezone, UTC]\n\
         agents:\n  - id: clock\n    model: plain\n    system_prompt: You tell the time in the city you are asked about, with your tool.\n\
         \x20   temperature: 0\n    tools: [clock.get_current_time]\n    is_terminal: true\n",
        time.display()
    );
    let crew = sandbox.write("clock.yaml", &crew);
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "What time is it in Paris?", "--json"]);
    let events: Vec<serde_json::Value> = run.lines().into_iter().map(parse).collect();
    let call = events.iter().find(|e| e["type"] == "tool_call").unwrap_or_else(|| panic!("no tool call: {events:#?}"));
    assert_eq!(call["name"], "clock.get_current_time", "{call}");
    assert!(call["arguments"]["timezone"].is_string(), "arguments of the tool's schema: {call}");
    let result = events.iter().find(|e| e["type"] == "tool_result").expect("the server answered");
    assert!(result["result"].as_str().unwrap_or_default().contains("datetime"), "the real server's answer: {result}");
    let reply = events.iter().rev().find(|e| e["type"] == "agent_response").expect("then a reply");
    assert!(!reply["content"].as_str().unwrap_or_default().contains("\"tool\""), "the reply is words, not JSON: {reply}");
}
