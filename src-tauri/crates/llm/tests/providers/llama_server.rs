//! The providers against a real model: llama.cpp's `llama-server` with
//! SmolLM2-135M-Instruct, the files `scripts/setup-local-model.sh` puts in `.tools/`
//! (found by [`LocalPaths::find`]; when they are missing every test fails with its
//! message, saying how to set them up).
//!
//! Two servers are started once for the whole binary, each on a thread of its own
//! that lives as long as the tests do (the servers die with it): the app's own,
//! started by [`LocalServer::start`] exactly as the local model starts it, and one
//! given a ChatML chat template that can call tools ([`TOOL_TEMPLATE`]), because
//! SmolLM2's own template cannot: with it llama.cpp has no tool-call format, ignores
//! `tools` and `tool_choice` and answers in text. The conformance suite's real-model
//! subjects (`conformance/real.rs`) run against both.
//!
//! What stays here is what only a real server shows: Anthropic's forced tool that
//! the app's server cannot honour (a clear error), [`LocalModel`] ending every reply
//! with one of the agent's signals, and starting another server when its own was
//! killed. A 135M model's words are often silly, so the tests check shapes, never
//! wording.

use std::future::Future;
use std::process::Stdio;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crewgraph_engine::run::history::Visible;
use std::sync::Arc;

use crewgraph_engine::run::{
    start_run, CollectingSink, ContextWindow, CrewSource, Ending, EventKind, LlmClient, LlmError, LlmReply, LlmRequest, MemoryStore,
    Message, RunDeps, RunStatus, SequentialIds, SystemClock, TokenSink,
};
use crewgraph_engine::AgentId;
use crewgraph_llm::{AnthropicClient, Limits, LocalModel, LocalPaths, LocalServer, OpenAiClient};
use tokio_util::sync::CancellationToken;

use crate::conformance::decision_schema;

/// A ChatML template (SmolLM2's tokens) that lists the tools in the system turn and
/// writes a tool call as `{"name": …, "arguments": …}`; llama.cpp reads that shape
/// off the template and parses (and, when required, forces) such calls.
const TOOL_TEMPLATE: &str = r#"{%- if tools %}
{{- '<|im_start|>system\n' }}{% if messages[0].role == 'system' %}{{ messages[0].content + '\n\n' }}{% endif %}
{{- 'To call a tool, reply with one JSON object {"name": ..., "arguments": {...}}. Tools:\n' }}
{%- for tool in tools %}{{ tool | tojson }}{{ '\n' }}{% endfor %}
{{- '<|im_end|>\n' }}
{%- elif messages[0].role == 'system' %}
{{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'system' %}
{%- elif message.role == 'assistant' and message.tool_calls %}
{{- '<|im_start|>assistant\n' }}
{%- for tool_call in message.tool_calls %}
{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '{"name": "' + tool_call.name + '", "arguments": ' + (tool_call.arguments | tojson) + '}' }}
{%- endfor %}
{{- '<|im_end|>\n' }}
{%- else %}
{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}
"#;

/// The longest a test may take (a slow, busy machine included) before it fails.
pub const CASE_LIMIT: Duration = Duration::from_secs(90);

/// The app's llama-server (SmolLM2's own template): `http://127.0.0.1:PORT`.
pub fn app_server() -> &'static str {
    static SERVER: OnceLock<Result<String, String>> = OnceLock::new();
    let started = SERVER.get_or_init(|| {
        serve_for_the_whole_run("app-llama-server", || async {
            let paths = LocalPaths::find()?;
            let server = LocalServer::start(&paths, 1).await?;
            Ok((server.base_url.clone(), server))
        })
    });
    started.as_deref().unwrap_or_else(|e| panic!("{e}"))
}

/// A llama-server given [`TOOL_TEMPLATE`]: `http://127.0.0.1:PORT`.
pub fn tool_server() -> &'static str {
    static SERVER: OnceLock<Result<String, String>> = OnceLock::new();
    let started = SERVER.get_or_init(|| {
        serve_for_the_whole_run("tool-llama-server", || async {
            let paths = LocalPaths::find()?;
            start_with_template(&paths, TOOL_TEMPLATE).await
        })
    });
    started.as_deref().unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `start` on a thread of its own and keeps what it returns alive there until
/// the test binary exits. The servers are started from that thread, and Linux ends
/// them (their parent-death signal) when it dies with the process.
fn serve_for_the_whole_run<S, F, G>(name: &str, start: S) -> Result<String, String>
where
    S: FnOnce() -> F + Send + 'static,
    F: Future<Output = Result<(String, G), String>>,
    G: 'static,
{
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime for the server");
            runtime.block_on(async move {
                match start().await {
                    Ok((url, server)) => {
                        let _ = sender.send(Ok(url));
                        std::future::pending::<()>().await;
                        drop(server);
                    }
                    Err(error) => {
                        let _ = sender.send(Err(error));
                    }
                }
            });
        })
        .expect("a thread for the server");
    receiver.recv().unwrap_or_else(|_| Err(format!("the {name} thread died while starting")))
}

/// Starts `paths.server` with `template` as its chat template, like
/// [`LocalServer::start`] does with the model's own, and waits for `/health`.
async fn start_with_template(paths: &LocalPaths, template: &str) -> Result<(String, tokio::process::Child), String> {
    let template_file = std::env::temp_dir().join(format!("crewgraph-llm-test-template-{}.jinja", std::process::id()));
    std::fs::write(&template_file, template).map_err(|e| format!("cannot write {}: {e}", template_file.display()))?;
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
    let mut command = tokio::process::Command::new(&paths.server);
    command
        .arg("--model")
        .arg(&paths.model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--ctx-size", "4096", "--parallel", "2"])
        .args(["--threads", "1", "--threads-batch", "1", "--no-webui", "--jinja", "--chat-template-file"])
        .arg(&template_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    die_with_parent(&mut command);
    let mut child = command.spawn().map_err(|e| format!("cannot start {}: {e}", paths.server.display()))?;
    let base_url = format!("http://127.0.0.1:{port}");
    let ready = wait_for_health(&base_url, &mut child).await;
    let _ = std::fs::remove_file(&template_file);
    ready.map(|()| (base_url, child))
}

async fn wait_for_health(base_url: &str, child: &mut tokio::process::Child) -> Result<(), String> {
    let started = Instant::now();
    let client = reqwest::Client::new();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("llama-server with the tool template stopped at once ({status})"));
        }
        let health = client.get(format!("{base_url}/health")).timeout(Duration::from_secs(2)).send().await;
        if health.is_ok_and(|r| r.status().is_success()) {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err("llama-server with the tool template was not ready within 60 s".to_owned());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut tokio::process::Command) {
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut tokio::process::Command) {}

/// Runs a case, failing it when it takes longer than [`CASE_LIMIT`].
async fn bounded<F: Future>(case: F) -> F::Output {
    tokio::time::timeout(CASE_LIMIT, case).await.expect("the case did not end in time")
}

pub fn openai_at(base_url: &str, max_tokens: u32) -> OpenAiClient {
    OpenAiClient::new(&format!("{base_url}/v1"), "local", None, Limits::default()).unwrap().with_max_tokens(Some(max_tokens))
}

pub fn anthropic_at(base_url: &str, max_tokens: u32) -> AnthropicClient {
    AnthropicClient::new(base_url, "local", None, Limits::default()).unwrap().with_max_tokens(Some(max_tokens))
}

/// A reply and the pieces passed to `on_token` on the way.
struct Streamed {
    result: Result<LlmReply, LlmError>,
    pieces: Vec<String>,
}

impl Streamed {
    fn reply(&self) -> &LlmReply {
        self.result.as_ref().unwrap_or_else(|e| panic!("expected a reply, got the error: {e}"))
    }
}

async fn complete(client: &dyn LlmClient, request: &LlmRequest<'_>) -> Streamed {
    let pieces = Mutex::new(Vec::new());
    let on_token = |piece: &str| pieces.lock().unwrap().push(piece.to_owned());
    let result = client.complete(request, &on_token, &CancellationToken::new()).await;
    Streamed { result, pieces: pieces.into_inner().unwrap() }
}

/// SmolLM2's own template has no tool-call format, so llama-server ignores the
/// forced tool and answers in text: the client must say so, not pass text off as
/// the structured answer.
#[tokio::test]
async fn anthropic_a_forced_tool_the_server_ignores_is_a_clear_error() {
    let base_url = app_server();
    bounded(async {
        let agent = AgentId::from("router");
        let history = [Message::user("The writer finished a draft. Who should go next, the editor or the writer?")];
        let schema = decision_schema();
        let request = LlmRequest { schema: Some(&schema), ..LlmRequest::new(&agent, "Decide who speaks next.", Visible::all(&history)) };
        let streamed = complete(&anthropic_at(base_url, 256), &request).await;
        let error = match &streamed.result {
            Err(LlmError::Failed(text)) => text.clone(),
            other => panic!("expected a failure, got {other:?}"),
        };
        // Which of the two depends on whether the text stopped before the token limit.
        assert!(
            error.contains("the model did not answer through the decision tool as it was told")
                || error.contains("the structured answer was cut off at the token limit"),
            "{error}"
        );
    })
    .await;
}

// ---- The local model ----

#[tokio::test]
async fn the_local_model_ends_every_reply_with_one_of_the_signals() {
    let model = LocalModel::new();
    if let Err(missing) = model.available() {
        panic!("{missing}");
    }
    bounded(async {
        let agent = AgentId::from("teacher");
        let signals = [Ending::Signal("[QUESTION]".to_owned()), Ending::Signal("[END]".to_owned())];
        let system = "You are a teacher. Ask the student one short arithmetic question, then write [QUESTION]. \
                      When the lesson is over, write [END].";
        let mut history = vec![Message::user("Start the lesson.")];
        for turn in 1..=3 {
            let request = LlmRequest { signals: &signals, ..LlmRequest::new(&agent, system, Visible::all(&history)) };
            let streamed = complete(&model, &request).await;
            let reply = streamed.reply();
            assert!(
                ["[QUESTION]", "[END]"].iter().any(|signal| reply.content.ends_with(signal)),
                "reply {turn} ends with a signal: {:?}",
                reply.content
            );
            assert_eq!(streamed.pieces.concat(), reply.content);
            history.push(Message::agent(&agent, reply.content.clone()));
            history.push(Message::user(format!("student: I think the answer is {turn}.")));
        }
    })
    .await;
}

#[tokio::test]
async fn the_local_model_ends_with_a_line_signal_carrying_its_payload() {
    let model = LocalModel::new();
    if let Err(missing) = model.available() {
        panic!("{missing}");
    }
    bounded(async {
        let agent = AgentId::from("developer");
        let patterns = [r"^READY_FOR_REVIEW:\s*(\S+)", "^SEEKING_CLARIFICATION$"];
        let endings: Vec<Ending> = patterns.iter().map(|p| Ending::Line((*p).to_owned())).collect();
        let matchers: Vec<regex::Regex> = patterns.iter().map(|p| regex::Regex::new(&format!("(?m){p}")).unwrap()).collect();
        let system = "You implement the task and describe the change. When it is ready, end with a line \
                      READY_FOR_REVIEW: <task id>. If the request is unclear, end with the line SEEKING_CLARIFICATION.";
        let history = [Message::user("Task T-7: add a logout button to the header.")];
        for turn in 1..=2 {
            // Greedy (temperature 0): a sampled reply may ramble past its 96 tokens before
            // the ending the grammar holds it to, and the test would fail one run in a few.
            let request = LlmRequest {
                signals: &endings,
                max_tokens: Some(96),
                temperature: Some(0.0),
                ..LlmRequest::new(&agent, system, Visible::all(&history))
            };
            let reply = complete(&model, &request).await.reply().content.clone();
            let last = reply.lines().last().unwrap_or_default();
            assert!(matchers.iter().any(|m| m.is_match(last)), "reply {turn} ends with a line a pattern matches: {reply:?}");
            if let Some(found) = matchers[0].captures(last) {
                assert!(!found[1].is_empty(), "the payload is there: {last:?}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn the_local_model_reports_its_window_and_counts_tokens() {
    let model = LocalModel::new();
    if let Err(missing) = model.available() {
        panic!("{missing}");
    }
    bounded(async {
        let window = model.context_window(None).await.expect("the server says its context");
        assert!(window.tokens >= 4096, "a slot holds what SmolLM2 was trained for (8,192), memory allowing: {window:?}");
        let counts = model.count_tokens(None, &["Hello there", "", "Kết Thúc"]).await.expect("llama-server counts tokens");
        assert_eq!(counts.len(), 3);
        assert!(counts[0] >= 2 && counts[1] == 0 && counts[2] >= 3, "{counts:?}");
    })
    .await;
}

/// The talker's replies are long and canned; the listener is the real model, at the
/// tool server, whose slots hold 2,048 tokens while the run believes 8,192 (a wrong
/// `context_window` a person set).
struct Misjudged {
    real: OpenAiClient,
}

#[async_trait::async_trait]
impl LlmClient for Misjudged {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        if request.agent.as_str() == "talker" {
            return Ok(LlmReply { content: "word ".repeat(500), ..LlmReply::default() });
        }
        self.real.complete(request, on_token, cancel).await
    }

    async fn context_window(&self, _model: Option<&crewgraph_engine::ModelSpec>) -> Option<ContextWindow> {
        Some(ContextWindow { tokens: 8192, reply: Some(48) })
    }
}

#[tokio::test]
async fn a_request_the_server_refuses_as_too_long_is_trimmed_to_the_window_it_says_and_the_run_goes_on() {
    let server = tool_server();
    bounded(async {
        let crew = crewgraph_engine::load::load_str(
            "talk.yaml",
            "entry_point: talker\nmax_handoffs: 8\nagents:\n  - { id: talker }\n  - { id: listener, system_prompt: Say one short sentence. }\n",
        )
        .crew
        .expect("the crew is valid");
        let sink = Arc::new(CollectingSink::default());
        let deps = RunDeps {
            llm: Arc::new(Misjudged { real: openai_at(server, 48) }),
            store: Arc::new(MemoryStore::new()),
            sink: sink.clone(),
            clock: Arc::new(SystemClock),
            ids: Arc::new(SequentialIds::default()),
            http: None,
            tool_host: None,
            approvals: Default::default(),
            notices: Vec::new(),
            gatekeeper: None,
            breaks: Default::default(),
            fork: None,
            executor: None,
        };
        let outcome = start_run(&crew, &CrewSource::default(), "Listen.", &deps, &CancellationToken::new()).await.unwrap();
        let events = sink.events();
        let said = |kind: &str| events.iter().filter(|e| e.kind.type_name() == kind).count();
        let warnings: Vec<String> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Warning { message } => Some(message.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(outcome.status, RunStatus::MaxHandoffs, "the run went on to its handoff limit: {:?} {warnings:?}", outcome.error);
        assert!(
            warnings.iter().any(|w| w.starts_with("listener's model said the conversation is too long for it") && w.contains("exceeds")),
            "the server's refusal was caught: {warnings:?}"
        );
        assert!(said("history_trimmed") > 0, "the history was trimmed to the window the server said");
    })
    .await;
}

#[tokio::test]
async fn discovery_finds_running_llama_servers_with_their_models_and_nothing_where_nothing_listens() {
    let (app, tools) = (app_server(), tool_server());
    bounded(async {
        let address = |url: &str| url.trim_start_matches("http://").to_owned();
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string(); // bound, then closed
        let started = Instant::now();
        let found = crewgraph_llm::discover::discover(&[address(app), silent.clone(), address(tools)]).await;
        assert_eq!(found.len(), 2, "both servers, and nothing where nothing listens: {found:?}");
        for (server, url) in found.iter().zip([app, tools]) {
            assert_eq!(server.kind, "llama.cpp");
            assert_eq!(server.base_url, format!("{url}/v1"));
            assert!(server.models.iter().any(|m| m.ends_with(".gguf")), "{server:?}");
        }
        let started_nothing = Instant::now();
        assert!(crewgraph_llm::discover::discover(&[silent]).await.is_empty());
        eprintln!("discovery: {:?} for three addresses, {:?} where nothing listens", started_nothing - started, started_nothing.elapsed());
    })
    .await;
}

#[tokio::test]
async fn a_check_tells_a_tool_capable_template_from_one_without() {
    let (app, tools) = (app_server(), tool_server());
    bounded(async {
        let plain = crewgraph_llm::check::check(Arc::new(openai_at(app, 64)), Some((2048, "reported by llama.cpp".into()))).await;
        assert!(plain.answers, "{plain:?}");
        assert_eq!((plain.streaming, plain.tools, plain.structured), (Some(true), Some(false), Some(true)), "{plain:?}");
        assert!(plain.first_token_ms.is_some() && plain.tokens_per_second.is_some_and(|s| s > 0.0), "{plain:?}");
        assert_eq!(plain.context_window, Some(2048));
        let capable = crewgraph_llm::check::check(Arc::new(openai_at(tools, 64)), None).await;
        assert_eq!((capable.answers, capable.tools), (true, Some(true)), "the tool template calls the tool: {capable:?}");
        let nowhere = crewgraph_llm::check::check(Arc::new(openai_at("http://127.0.0.1:9", 64)), None).await;
        assert!(!nowhere.answers);
        assert!(nowhere.problem.as_deref().is_some_and(|p| p.contains("nothing answers at 127.0.0.1:9")), "{nowhere:?}");
        assert_eq!(nowhere.tools, None, "nothing more is asked of a model that does not answer");
    })
    .await;
}

#[tokio::test]
async fn the_local_model_starts_its_server_again_when_it_died() {
    let model = LocalModel::new();
    if let Err(missing) = model.available() {
        panic!("{missing}");
    }
    bounded(async {
        let agent = AgentId::from("teacher");
        let history = [Message::user("Say hello.")];
        let request = LlmRequest::new(&agent, "Be brief.", Visible::all(&history));
        assert!(!complete(&model, &request).await.reply().content.is_empty());
        let first = model.server_pid().await.expect("the server runs after a call");
        // SAFETY: kill(2) on the pid of our own child process.
        assert_eq!(unsafe { libc::kill(first as i32, libc::SIGKILL) }, 0);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let reply = complete(&model, &request).await;
        assert!(!reply.reply().content.is_empty(), "the call after the crash was answered");
        let second = model.server_pid().await.expect("a new server runs");
        assert_ne!(first, second);
    })
    .await;
}
