//! The local model: SmolLM2-135M-Instruct served by llama.cpp's `llama-server`,
//! started on first use on a free loopback port (again when it died) and stopped
//! with the client (or the process). It speaks the OpenAI protocol, so the local model goes through the same
//! code as any endpoint ([`OpenAiClient`]), plus llama.cpp's `grammar` field: a reply
//! must end with one of the agent's signals (a 135M model ends with the asked-for
//! signal 0 times in 30 unconstrained, but always under the grammar), and a
//! structured answer must fit its schema (`response_format`, which llama.cpp turns
//! into a grammar too). The local model calls no tools: SmolLM2's chat template has
//! no tool format, so llama.cpp answers in text whatever tools it is offered (and a
//! reply held to its signals is not offered any).
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
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, TokenSink};
use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop};
use serde_json::json;
use tokio::process::Command;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::http::Limits;
use crate::openai::OpenAiClient;

/// The model file `make run` (scripts/setup-local-model.sh) puts in place.
pub const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// How the local model is named to people.
pub const MODEL_NAME: &str = "SmolLM2-135M-Instruct (local)";
/// The most characters of text before the signal a grammar allows: the model must
/// come to its signal within about seventy tokens (left alone, SmolLM2 rarely
/// stops before the limit, and its later sentences only repeat the first ones).
const MAX_BODY_CHARS: usize = 280;
/// llama.cpp's penalty on repeated tokens: at 1.0 SmolLM2 loops on one sentence
/// ("Your turn, please." ten times); at 1.15 it writes on.
const REPEAT_PENALTY: f64 = 1.15;
/// The most tokens of a reply (the body, the signal, or a structured answer).
const MAX_TOKENS: u32 = 256;

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
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--ctx-size", "8192", "--parallel", "2"])
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
                return Ok(LocalServer { process: child, base_url, startup: started.elapsed() });
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

/// On Linux, the server is sent SIGTERM when Crewgraph dies, however it dies.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

/// The local model as a provider: the server starts on the first call.
pub struct LocalModel {
    paths: Result<LocalPaths, String>,
    threads: u32,
    running: Mutex<Option<(Arc<LocalServer>, OpenAiClient)>>,
}

impl LocalModel {
    /// The local model found by [`LocalPaths::find`], on one inference thread (on a
    /// busy 2-core machine two threads ran 3–8× slower; `$CREWGRAPH_LOCAL_THREADS`
    /// changes it).
    pub fn new() -> Self {
        let threads = std::env::var("CREWGRAPH_LOCAL_THREADS").ok().and_then(|t| t.parse().ok()).filter(|t| *t > 0).unwrap_or(1);
        LocalModel { paths: LocalPaths::find(), threads, running: Mutex::new(None) }
    }

    /// Whether the files are there (not whether the server starts).
    pub fn available(&self) -> Result<&LocalPaths, &str> {
        self.paths.as_ref().map_err(String::as_str)
    }

    /// The running server's process id, if it runs.
    pub async fn server_pid(&self) -> Option<u32> {
        self.running.lock().await.as_ref().and_then(|(server, _)| server.process.child.id())
    }

    /// The running server's client, starting it when needed.
    async fn client(&self) -> Result<OpenAiClient, LlmError> {
        let mut running = self.running.lock().await;
        if let Some((_, client)) = running.as_ref() {
            return Ok(client.clone());
        }
        let paths = self.paths.as_ref().map_err(|e| LlmError::Failed(e.clone()))?;
        let server =
            LocalServer::start(paths, self.threads).await.map_err(|e| LlmError::Failed(format!("the local model cannot start: {e}")))?;
        let limits = Limits { retries: 1, ..Limits::default() };
        let client = OpenAiClient::named("the local model".to_owned(), &format!("{}/v1", server.base_url), "local", None, limits)?
            .with_max_tokens(Some(MAX_TOKENS));
        *running = Some((Arc::new(server), client.clone()));
        Ok(client)
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
            let client = tokio::select! {
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                client = self.client() => client?,
            };
            let mut body = client.body(request);
            body["repeat_penalty"] = json!(REPEAT_PENALTY);
            // A schema is its own grammar. A grammar and tool calls exclude each other:
            // a reply that must end with a signal is not offered tools (a 135M model
            // calls them poorly anyway, and without its signal the crew cannot go on).
            if request.schema.is_none() && !request.signals.is_empty() {
                if let Some(body) = body.as_object_mut() {
                    body.remove("tools");
                }
                body["grammar"] = json!(signal_grammar(request.signals));
            }
            let reply = client.send(&body, request.schema.is_some(), on_token, cancel).await;
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
}

/// A GBNF grammar for "some text, then one of `signals`": the text holds no
/// bracket, so the reply's only way to end is a signal, within `MAX_BODY_CHARS` characters.
pub fn signal_grammar(signals: &[String]) -> String {
    let alternatives: Vec<String> = signals.iter().map(|s| gbnf_literal(s)).collect();
    format!("root ::= body signal\nbody ::= [^\\[\\]] [^\\[\\]]{{0,{}}}\nsignal ::= {}\n", MAX_BODY_CHARS - 1, alternatives.join(" | "))
}

fn gbnf_literal(text: &str) -> String {
    let mut literal = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            '\n' => literal.push_str("\\n"),
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
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
    fn the_grammar_ends_with_one_of_the_signals_written_as_literals() {
        let grammar = signal_grammar(&["[QUESTION]".to_owned(), "[SAY \"HI\"]".to_owned()]);
        assert_eq!(
            grammar,
            "root ::= body signal\nbody ::= [^\\[\\]] [^\\[\\]]{0,279}\nsignal ::= \"[QUESTION]\" | \"[SAY \\\"HI\\\"]\"\n"
        );
    }
}
