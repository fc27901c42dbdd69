//! The local model: SmolLM2-135M-Instruct served by llama.cpp's `llama-server`,
//! started on first use on a free loopback port (again when it died) and stopped
//! with the client (or the process). It speaks the OpenAI protocol, so the local model goes through the same
//! code as any endpoint ([`OpenAiClient`]), plus llama.cpp's `grammar` field: a reply
//! must end with one of the agent's signals, a bracket signal or a line signal's line
//! ([`crate::grammar`]; a 135M model ends with the asked-for signal 0 times in 30
//! unconstrained, but always under the grammar), and a structured answer must fit its
//! schema (`response_format`, which llama.cpp turns into a grammar too). SmolLM2's
//! chat template has no tool format, so tools are offered through structured output
//! instead ([`crate::tool_json`]): the reply is held to one JSON object, a call of an
//! offered tool or an answer ending with a signal, and read back into the same tool
//! calls a native tool-calling model gives.
//!
//! Its context window is the server's own: llama.cpp sizes each of its two slots for
//! the context the model file was trained for, as far as memory allows, and says so
//! in `/props`; its `/tokenize` counts tokens for the engine's trimming.
//!
//! Why a server process rather than llama.cpp linked in: one C++ build serves both
//! the app and the provider tests; a crash inside llama.cpp (its asserts abort the
//! process) ends a child, not the window; and the code path is the one real
//! endpoints take. Where the files are: [`LocalPaths::find`].
//!
//! The server runs in a process group of its own (a job object on Windows, through
//! `process-wrap`), and the whole group is killed when its [`LocalServer`] is
//! dropped, so whatever llama-server started dies with it. Should Crewgraph die
//! without dropping it: on Windows the job dies with its last handle; on Linux the
//! server is sent SIGTERM (its parent-death signal); on macOS, which has no such
//! signal, the server outlives a Crewgraph that was killed outright.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use crewgraph_engine::run::{ContextWindow, LlmClient, LlmError, LlmReply, LlmRequest, TokenSink};
use crewgraph_engine::ModelSpec;
use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop};
use serde_json::{json, Value};
use tokio::process::Command;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::grammar::{ending_grammar, MAX_BODY_CHARS};
use crate::http::Limits;
use crate::openai::OpenAiClient;
use crate::tool_json::{self, Asked};

/// The model file `make run` (scripts/setup-local-model.sh) puts in place.
pub const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// How the local model is named to people.
pub const MODEL_NAME: &str = "SmolLM2-135M-Instruct (local)";
/// llama.cpp's penalty on repeated tokens: at 1.0 SmolLM2 loops on one sentence
/// ("Your turn, please." ten times); at 1.15 it writes on.
const REPEAT_PENALTY: f64 = 1.15;
/// The most tokens of a reply (its text and its signal), so a turn takes seconds.
const MAX_TOKENS: u32 = 128;
/// The most tokens of a structured answer (a router's decision names an agent and
/// writes an instruction: 128 tokens cut some off).
const MAX_STRUCTURED_TOKENS: u32 = 512;

/// Where the server binary and the model file are.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalPaths {
    pub server: PathBuf,
    pub model: PathBuf,
}

impl LocalPaths {
    /// `$CREWGRAPH_LLAMA_SERVER` and `$CREWGRAPH_LOCAL_MODEL` when set; else the
    /// first of these folders that holds both — `$CREWGRAPH_LOCAL_DIR`,
    /// `<data dir>/crewgraph/local`, the source tree's `.tools` (where `make run`
    /// puts them) — with `bin/llama-server` and `models/<MODEL_FILE>` inside.
    pub fn find() -> Result<LocalPaths, String> {
        let server = std::env::var_os("CREWGRAPH_LLAMA_SERVER").map(PathBuf::from);
        let model = std::env::var_os("CREWGRAPH_LOCAL_MODEL").map(PathBuf::from);
        let mut folders: Vec<PathBuf> = Vec::new();
        if let Some(dir) = std::env::var_os("CREWGRAPH_LOCAL_DIR") {
            folders.push(dir.into());
        }
        if let Some(data) = std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/share")))
        {
            folders.push(data.join("crewgraph/local"));
        }
        folders.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../.tools"));
        let pick = |given: Option<PathBuf>, inside: &str| given.or_else(|| folders.iter().map(|f| f.join(inside)).find(|p| p.is_file()));
        let server = pick(server, "bin/llama-server");
        let model = pick(model, &format!("models/{MODEL_FILE}"));
        match (server, model) {
            (Some(server), Some(model)) if server.is_file() && model.is_file() => Ok(LocalPaths { server, model }),
            (server, model) => Err(format!(
                "the local model is not set up ({} missing): run 'make run' (or scripts/setup-local-model.sh) once, \
                 or set CREWGRAPH_LLAMA_SERVER and CREWGRAPH_LOCAL_MODEL",
                match (server.filter(|s| s.is_file()), model.filter(|m| m.is_file())) {
                    (None, None) => "llama-server and the model file",
                    (None, Some(_)) => "llama-server",
                    _ => "the model file",
                }
            )),
        }
    }
}

/// A running `llama-server`, killed with its whole process group when dropped.
pub struct LocalServer {
    process: Group,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// How long it took to be ready.
    pub startup: Duration,
    /// The tokens one request may hold (a slot's context, at most what the model
    /// was trained for), as the server says; None when it did not say.
    pub context: Option<u32>,
}

impl LocalServer {
    /// Starts `llama-server` on a free loopback port with `threads` inference threads,
    /// and waits until it answers `/health` (or dies, or 60 s pass).
    pub async fn start(paths: &LocalPaths, threads: u32) -> Result<LocalServer, String> {
        let started = Instant::now();
        let port = free_port().map_err(|e| format!("no free loopback port: {e}"))?;
        let log = std::env::temp_dir().join(format!("crewgraph-llama-server-{port}.log"));
        let log_file = std::fs::File::create(&log).map_err(|e| format!("cannot write {}: {e}", log.display()))?;
        let mut command = Command::new(&paths.server);
        command
            .arg("--model")
            .arg(&paths.model)
            // No --ctx-size: llama.cpp gives each slot the context the model was
            // trained for, as far as memory allows (--fit, its default).
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--parallel", "2"])
            .args(["--threads", &threads.to_string(), "--threads-batch", &threads.to_string(), "--no-webui", "--jinja"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file);
        let mut child = Group::spawn(command).map_err(|e| format!("cannot start {}: {e}", paths.server.display()))?;
        let base_url = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        loop {
            if let Ok(Some(status)) = child.child.try_wait() {
                let tail = std::fs::read_to_string(&log).unwrap_or_default();
                let tail: Vec<&str> = tail.lines().rev().take(5).collect();
                return Err(format!(
                    "llama-server stopped at once ({status}); its last words: {}",
                    tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                ));
            }
            let health = client.get(format!("{base_url}/health")).timeout(Duration::from_secs(2)).send().await;
            if health.is_ok_and(|r| r.status().is_success()) {
                let _ = std::fs::remove_file(&log);
                let context = crate::window::ask_server(&client, &format!("{base_url}/v1"), &Default::default(), "local").await.window;
                return Ok(LocalServer { process: child, base_url, startup: started.elapsed(), context });
            }
            if started.elapsed() > Duration::from_secs(60) {
                child.stop().await;
                return Err(format!("llama-server did not become ready within 60 s (log: {})", log.display()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Stops the server (its whole process group) and waits for it to exit.
    pub async fn stop(mut self) {
        self.process.stop().await;
    }
}

/// Counts the tokens of each of `texts` with the llama.cpp server at `base_url`
/// (`POST /tokenize`); None when it does not answer for every text.
pub(crate) async fn tokenize(client: &reqwest::Client, base_url: &str, texts: &[&str]) -> Option<Vec<u32>> {
    let url = format!("{base_url}/tokenize");
    let counts = futures_util::future::join_all(texts.iter().map(|text| {
        let request = client.post(&url).json(&json!({"content": text, "add_special": false})).timeout(Duration::from_secs(10)).send();
        async move {
            let answer: Value = request.await.ok()?.error_for_status().ok()?.json().await.ok()?;
            u32::try_from(answer.get("tokens")?.as_array()?.len()).ok()
        }
    }))
    .await;
    counts.into_iter().collect()
}

/// A child process leading a process group of its own (a job object on Windows):
/// dropping it kills the whole group, not only the child.
struct Group {
    child: Box<dyn ChildWrapper>,
    /// Killed and waited for already ([`Group::stop`]).
    stopped: bool,
}

impl Group {
    /// Spawns `command` as the leader of a new group.
    fn spawn(mut command: Command) -> std::io::Result<Group> {
        die_with_parent(&mut command);
        let mut command = CommandWrap::from(command);
        // Kills the child itself when dropped (and on Windows makes the job die with its last handle).
        command.wrap(KillOnDrop);
        #[cfg(unix)]
        command.wrap(process_wrap::tokio::ProcessGroup::leader());
        #[cfg(windows)]
        command.wrap(process_wrap::tokio::JobObject);
        Ok(Group { child: command.spawn()?, stopped: false })
    }

    /// Kills the group and waits for its leader to exit.
    async fn stop(&mut self) {
        let _ = Box::into_pin(self.child.kill()).await;
        self.stopped = true;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.stopped {
            // The whole group: SIGKILL to it on Unix, the job terminated on Windows.
            let _ = self.child.start_kill();
        }
    }
}

/// A port the OS says is free now (the server binds it a moment later).
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// On Linux, the child `command` starts is sent SIGTERM when Crewgraph dies, however
/// it dies (the local model's server, a tool server).
#[cfg(target_os = "linux")]
pub fn die_with_parent(command: &mut Command) {
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
}

/// Elsewhere the child is stopped when Crewgraph drops it.
#[cfg(not(target_os = "linux"))]
pub fn die_with_parent(_command: &mut Command) {}

/// The local model as a provider: the server starts on the first call.
pub struct LocalModel {
    paths: Result<LocalPaths, String>,
    threads: u32,
    running: Mutex<Option<(Arc<LocalServer>, OpenAiClient)>>,
    /// For asking the server about itself (`/tokenize`).
    http: reqwest::Client,
}

impl LocalModel {
    /// The local model found by [`LocalPaths::find`], on one inference thread (on a
    /// busy 2-core machine two threads ran 3–8× slower; `$CREWGRAPH_LOCAL_THREADS`
    /// changes it).
    pub fn new() -> Self {
        let threads = std::env::var("CREWGRAPH_LOCAL_THREADS").ok().and_then(|t| t.parse().ok()).filter(|t| *t > 0).unwrap_or(1);
        LocalModel { paths: LocalPaths::find(), threads, running: Mutex::new(None), http: reqwest::Client::new() }
    }

    /// Whether the files are there (not whether the server starts).
    pub fn available(&self) -> Result<&LocalPaths, &str> {
        self.paths.as_ref().map_err(String::as_str)
    }

    /// The running server's process id, if it runs.
    pub async fn server_pid(&self) -> Option<u32> {
        self.running.lock().await.as_ref().and_then(|(server, _)| server.process.child.id())
    }

    /// The running server and its client, starting it when needed.
    async fn running(&self) -> Result<(Arc<LocalServer>, OpenAiClient), LlmError> {
        let mut running = self.running.lock().await;
        if let Some((server, client)) = running.as_ref() {
            return Ok((server.clone(), client.clone()));
        }
        let paths = self.paths.as_ref().map_err(|e| LlmError::Failed(e.clone()))?;
        let server =
            LocalServer::start(paths, self.threads).await.map_err(|e| LlmError::Failed(format!("the local model cannot start: {e}")))?;
        let limits = Limits { retries: 1, ..Limits::default() };
        let client = OpenAiClient::named("the local model".to_owned(), &format!("{}/v1", server.base_url), "local", None, limits)?
            .with_max_tokens(Some(MAX_TOKENS));
        let server = Arc::new(server);
        *running = Some((server.clone(), client.clone()));
        Ok((server, client))
    }
}

impl Default for LocalModel {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl LlmClient for LocalModel {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        let mut tries = 0;
        loop {
            let (_, client) = tokio::select! {
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                running = self.running() => running?,
            };
            let mut body = client.body(request);
            body["repeat_penalty"] = json!(REPEAT_PENALTY);
            if request.schema.is_some() && request.max_tokens.is_none() {
                body["max_tokens"] = json!(MAX_STRUCTURED_TOKENS);
            }
            // SmolLM2's template has no tool format: calls and results are written as
            // words, and tools are offered through structured output (`tool_json`):
            // the reply is one JSON object, a call or an answer ending with a signal;
            // after a result, an answer.
            let asked = tool_json::asked_of(&body, request);
            match asked {
                Some(asked) => offer_tools(&mut body, request, asked),
                // A schema is its own grammar.
                None => {
                    tool_json::without_tool_roles(&mut body);
                    if let Some(body) = body.as_object_mut() {
                        body.remove("tools");
                        body.remove("tool_choice");
                    }
                    if let Some(grammar) =
                        request.schema.is_none().then(|| ending_grammar(request.signals, body_chars(request.max_tokens))).flatten()
                    {
                        body["grammar"] = json!(grammar);
                    }
                }
            }
            let reply = if asked.is_some() {
                // The JSON is read first; the agent's words are passed on once it is.
                let id = format!("call_local_{}", body["messages"].as_array().map_or(0, Vec::len));
                client.send(&body, false, &|_| {}, cancel).await.map(|reply| {
                    let (content, tool_calls) = tool_json::read(&reply.content, request.tools, &id);
                    if !content.is_empty() {
                        on_token(&content);
                    }
                    LlmReply { content, tool_calls, usage: reply.usage }
                })
            } else {
                client.send(&body, request.schema.is_some(), on_token, cancel).await
            };
            tries += 1;
            match reply {
                // The server is gone (it crashed, or was killed): start another, once.
                Err(LlmError::Failed(why)) if crate::failure::server_gone(&why) => {
                    self.running.lock().await.take();
                    if tries > 1 {
                        return Err(LlmError::Failed(why));
                    }
                }
                reply => return reply,
            }
        }
    }

    /// SmolLM2 has no tool format: always.
    fn tools_through_structured_output(&self, _model: Option<&ModelSpec>) -> bool {
        true
    }

    /// The server's own context (it is started for the answer, as the call that
    /// follows would start it anyway).
    async fn context_window(&self, _model: Option<&ModelSpec>) -> Option<ContextWindow> {
        let (server, _) = self.running().await.ok()?;
        Some(ContextWindow { tokens: server.context?, reply: Some(MAX_TOKENS) })
    }

    async fn count_tokens(&self, _model: Option<&ModelSpec>, texts: &[&str]) -> Option<Vec<u32>> {
        let (server, _) = self.running().await.ok()?;
        tokenize(&self.http, &server.base_url, texts).await
    }
}

/// Tells the model the request's tools and holds its reply to a call of one of them
/// or an answer (`tool_json`), with room for both.
fn offer_tools(body: &mut Value, request: &LlmRequest<'_>, asked: Asked) {
    tool_json::offer_in_words(body, request.tools, asked);
    body["grammar"] = json!(tool_json::grammar(request.tools, request.signals, asked));
    if request.max_tokens.is_none() {
        body["max_tokens"] = json!(MAX_STRUCTURED_TOKENS);
    }
}

/// The characters of text a grammar allows before the ending, for a reply of at
/// most `max_tokens` tokens (about three characters a token, the ending's share kept).
fn body_chars(max_tokens: Option<u32>) -> usize {
    match max_tokens {
        None => MAX_BODY_CHARS,
        Some(tokens) => (tokens.saturating_sub(24) as usize * 3).clamp(40, 8000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether process `pid` runs (a zombie, killed but not yet reaped, does not).
    #[cfg(target_os = "linux")]
    fn runs(pid: &str) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'))
    }

    /// What llama-server starts must not outlive it: the group dies, not only its leader.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn dropping_a_group_kills_the_children_of_its_leader_too() {
        let pid_file = std::env::temp_dir().join(format!("crewgraph-llm-group-{}", std::process::id()));
        let _ = std::fs::remove_file(&pid_file);
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 600 & echo $! > \"$0.partial\" && mv \"$0.partial\" \"$0\"; wait"]).arg(&pid_file);
        let group = Group::spawn(command).expect("sh starts");
        let waited = Instant::now();
        let grandchild = loop {
            match std::fs::read_to_string(&pid_file) {
                Ok(pid) => break pid.trim().to_owned(),
                Err(_) if waited.elapsed() < Duration::from_secs(30) => tokio::time::sleep(Duration::from_millis(20)).await,
                Err(error) => panic!("the leader never said its child's pid ({error})"),
            }
        };
        let _ = std::fs::remove_file(&pid_file);
        assert!(runs(&grandchild), "the leader's child runs before the drop");
        drop(group);
        let dropped = Instant::now();
        while runs(&grandchild) && dropped.elapsed() < Duration::from_secs(30) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!runs(&grandchild), "the leader's child {grandchild} still runs after the group was dropped");
    }

    #[test]
    fn the_text_before_the_ending_fits_the_replys_tokens() {
        assert_eq!(body_chars(None), MAX_BODY_CHARS);
        assert_eq!(body_chars(Some(100)), 228);
        assert_eq!(body_chars(Some(10)), 40, "always room for a few words");
    }
}
