//! Secrets (issue 23): a key goes to the server it is for, and nowhere else.
//!
//! One test puts a different key in every place a key can go — the OS keyring
//! (`crewgraph keys set`), the environment (`OPENAI_API_KEY`), a gatekeeper's token
//! (`token_env`), a base URL (its query, and a user:password in it), and the
//! server's own token (`CREWGRAPH_TOKEN`) — runs crews with them against a server on
//! 127.0.0.1 that records what it gets (and echoes keys back in errors, as careless
//! servers do), then greps for each key: the database files, every event, the
//! recordings (the API's export and `GET /runs/{id}/recording`), the server's
//! answers and output, and everything the CLI printed. Only a key in a base URL's
//! query may be kept, and only in the settings, where the address is.
//!
//! Keys are set, used, replaced and removed through the CLI (`crewgraph keys`) and
//! through the API the window's Settings call (`Api::set_api_key`,
//! `Api::remove_api_key`), each use checked at the server; and without a keyring,
//! the person is told so in a sentence that says what to do instead.
//!
//! The tests named `keyring_*` need a Secret Service, `locked_keyring_*` a locked
//! one, and `no_keyring_*` none at all: they are ignored by a plain `cargo test`
//! and run by `scripts/test-secrets.sh` (a step of `make test`) — inside a private
//! D-Bus session with gnome-keyring unlocked with a throwaway password in a temp
//! folder, in a second session where that keyring stays locked (and no prompt can
//! show), and with no session bus. Each refuses to run unless that script set it up
//! (`CREWGRAPH_TEST_KEYRING`), so a developer's own keyring is never touched.
//!
//! `everywhere`: the key in every place; `keys`: set, used, replaced and removed
//! through the CLI and the API; `without`: no keyring, or a locked one.

mod everywhere;
mod keys;
mod without;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::e2e::{parse, COMMAND_LIMIT};
use crate::support::{crewgraph, Run};

/// Set by `scripts/test-secrets.sh`: `private` inside its own keyring session,
/// `locked` where that keyring is locked, `none` where no session bus is.
const MARK: &str = "CREWGRAPH_TEST_KEYRING";

/// Refuses to go on unless the script set up what the test may use.
fn require(setup: &str) {
    let found = std::env::var(MARK).unwrap_or_default();
    assert_eq!(
        found, setup,
        "this test runs under scripts/test-secrets.sh ({MARK}={setup}), which gives it a throwaway keyring \
         (or none), never yours"
    );
}

const KEYRING_KEY: &str = "sk-keyring-7d1e-never-stored-01234567";
const ENV_KEY: &str = "sk-env-2b9c-never-stored-89abcdef";
const GATE_TOKEN: &str = "gk-gate-5a0f-never-stored-13579bdf";
const URL_KEY: &str = "sk-urlquery-3c4d-never-stored-2468ace";
const USERINFO_KEY: &str = "sk-userinfo-9e8f-never-stored-112233";
const SERVE_TOKEN: &str = "tok-serve-4f3e-never-stored-556677";

/// The environment variable holding the gatekeeper's token.
const GATE_VAR: &str = "CREWGRAPH_SECRETS_TEST_GATE_TOKEN";

/// Two agents: the asker hands over with [NEXT]; the finisher ends the run.
const TWO_STEP_CREW: &str = r#"version: "1.0"
name: Two steps
entry_point: asker
agents:
  - { id: asker, system_prompt: "Ask the finisher to say hello." }
  - { id: finisher, system_prompt: "Say hello in one sentence.", is_terminal: true }
routing:
  signals:
    asker:
      - { signal: "[NEXT]", target: finisher }
"#;

/// What the desk server got: each request's line, head and body.
type Seen = Arc<Mutex<Vec<String>>>;

/// A server on 127.0.0.1 standing in for every service a key goes to. Paths under
/// `/route` are a gatekeeper (its first answer is garbage echoing the
/// `Authorization` header, so it is asked again; then the workflow is complete);
/// under `/echo401/` a provider refusing the key and quoting it and the query back;
/// anything else a provider streaming `Hello there. [NEXT]`.
struct Desk {
    base: String,
    seen: Seen,
}

impl Desk {
    fn start() -> Desk {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Seen = Arc::default();
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = log.clone();
                std::thread::spawn(move || serve_one(stream, &log));
            }
        });
        Desk { base, seen }
    }

    /// The requests whose line holds `path`.
    fn requests_to(&self, path: &str) -> Vec<String> {
        self.seen.lock().unwrap().iter().filter(|r| r.lines().next().is_some_and(|l| l.contains(path))).cloned().collect()
    }
}

fn serve_one(mut stream: TcpStream, log: &Seen) {
    let (head, body) = crate::support::read_request(&stream);
    let request_line = head.lines().next().unwrap_or("").to_owned();
    let authorization = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("authorization")).map(|(_, v)| v.trim().to_owned()));
    let earlier_gatekeeper_asks = {
        let mut log = log.lock().unwrap();
        let earlier = log.iter().filter(|r| r.starts_with("POST /route")).count();
        log.push(format!("{head}\r\n{}", String::from_utf8_lossy(&body)));
        earlier
    };
    let response = if request_line.starts_with("POST /route") {
        if earlier_gatekeeper_asks == 0 {
            json_answer(200, "OK", &format!("unauthorized? you sent {}", authorization.unwrap_or_default()))
        } else {
            json_answer(200, "OK", r#"{"workflow_complete": true, "next_agent": null, "next_instruction": null, "confidence": 0.99}"#)
        }
    } else if request_line.contains("/echo401/") {
        let message = format!("Incorrect API key provided: {} (for {request_line})", authorization.unwrap_or_default());
        json_answer(401, "Unauthorized", &serde_json::json!({"error": {"message": message}}).to_string())
    } else {
        let chunk = |value: serde_json::Value| format!("data: {value}\n\n");
        let body = [
            chunk(serde_json::json!({"choices": [{"index": 0, "delta": {"content": "Hello there. [NEXT]"}}]})),
            chunk(serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n{body}")
    };
    let _ = stream.write_all(response.as_bytes());
}

fn json_answer(status: u16, reason: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// `crewgraph ARGS` in `dir` with the environment keys set, `stdin` as its input.
fn cg(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let output = crewgraph()
        .current_dir(dir)
        .args(args)
        .env("OPENAI_API_KEY", ENV_KEY)
        .env(GATE_VAR, GATE_TOKEN)
        .write_stdin(stdin)
        .timeout(COMMAND_LIMIT)
        .output()
        .expect("crewgraph runs");
    let run = Run {
        code: output.status.code().unwrap_or_else(|| panic!("crewgraph {args:?} was killed or hung: {output:?}")),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    crate::e2e::assert_no_panic(&run.stderr);
    run
}

/// `crewgraph models add NAME` of the OpenAI-compatible model `m` at `url`, its key
/// kept under `key` (None: the provider's name).
fn add_model(dir: &Path, db: &Path, name: &str, url: &str, key: Option<&str>) -> Run {
    let db = db.to_str().unwrap();
    let mut args = vec!["models", "add", name, "--provider", "openai", "--model", "m", "--base-url", url, "--db", db];
    if let Some(key) = key {
        args.extend(["--key", key]);
    }
    cg(dir, &args, "")
}

/// `crewgraph run CREW --input 'Greet me' --model MODEL --json` over `db`.
fn run_crew(dir: &Path, db: &Path, crew: &Path, model: &str) -> Run {
    let args = ["run", crew.to_str().unwrap(), "--input", "Greet me", "--model", model, "--json", "--db", db.to_str().unwrap()];
    cg(dir, &args, "")
}

/// True when `crewgraph keys` printed a line for `provider` ending in `origin`
/// (`set (keyring)`, `set (environment)`).
fn says_key(keys_output: &str, provider: &str, origin: &str) -> bool {
    keys_output.lines().any(|l| l.starts_with(provider) && l.ends_with(origin))
}

/// `crewgraph run` of the two-step crew on `model`; returns the requests the desk got for it.
fn run_on(dir: &Path, db: &Path, desk: &Desk, model: &str, path: &str) -> Vec<String> {
    let before = desk.requests_to(path).len();
    let crew = dir.join("two-steps.yaml");
    std::fs::write(&crew, TWO_STEP_CREW).unwrap();
    let run = run_crew(dir, db, &crew, model);
    assert_eq!(run.code, 0, "the run on {model}: {}\n{}", run.stdout, run.stderr);
    desk.requests_to(path).split_off(before)
}

/// The bearer keys the requests carried (None for a request without one).
fn bearers(requests: &[String]) -> Vec<Option<String>> {
    requests
        .iter()
        .map(|r| {
            r.lines()
                .find_map(|l| l.strip_prefix("authorization: Bearer ").or_else(|| l.strip_prefix("Authorization: Bearer ")))
                .map(|k| k.trim().to_owned())
        })
        .collect()
}

/// Where `crewgraph models --json` says model `name`'s key comes from.
fn key_origin(dir: &Path, db: &Path, name: &str) -> Option<String> {
    let listed = cg(dir, &["models", "--json", "--db", db.to_str().unwrap()], "");
    let view =
        listed.stdout.lines().map(parse).find(|v| v["name"] == name).unwrap_or_else(|| panic!("{name} is listed: {}", listed.stdout));
    view["key"].as_str().map(str::to_owned)
}

/// What a person must never see: Rust's names for things.
fn assert_plain_words(text: &str) {
    for marker in ["::", "Error(", "Error {", "PlatformFailure", "NoStorageAccess", "Some(", "Os {", "panicked"] {
        assert!(!text.contains(marker), "Rust's internals ({marker}) in what a person reads: {text}");
    }
}
