//! A different key in every place a key can go, each run against the desk, then
//! every byte Crewgraph wrote or showed grepped for every key.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crewgraph::api::Api;
use crewgraph_engine::RunId;
use crewgraph_store::SqliteStore;

use super::*;
use crate::support::block_on;

/// Everything the test has read back, each piece named for the failure message.
#[derive(Default)]
struct Written(Vec<(String, Vec<u8>)>);

impl Written {
    fn add(&mut self, what: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.0.push((what.into(), bytes.into()));
    }

    fn add_run(&mut self, what: &str, run: &Run) {
        self.add(format!("{what}: stdout"), run.stdout.clone());
        self.add(format!("{what}: stderr"), run.stderr.clone());
    }

    /// Fails naming where `secret` (or its second half) is.
    fn assert_nowhere(&self, secret: &str, name: &str) {
        for needle in [secret, &secret[secret.len() / 2..]] {
            for (what, bytes) in &self.0 {
                assert!(!contains(bytes, needle), "{name} leaked into {what}: {}", String::from_utf8_lossy(bytes));
            }
        }
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// The `run_id` of the first JSON line of a run's output.
fn run_id_of(run: &Run) -> String {
    let first = run.stdout.lines().next().unwrap_or_else(|| panic!("the run printed nothing: {}", run.stderr));
    parse(first)["run_id"].as_str().expect("a run id").to_owned()
}

/// Every row of every table but `settings`, as text.
fn rows_outside_settings(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).expect("the database opens");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'settings'")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut text = String::new();
    for table in tables {
        let mut statement = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let columns = statement.column_count();
        let mut rows = statement.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            for column in 0..columns {
                match row.get_ref(column).unwrap() {
                    rusqlite::types::ValueRef::Text(bytes) | rusqlite::types::ValueRef::Blob(bytes) => {
                        text.push_str(&String::from_utf8_lossy(bytes));
                        text.push('\n');
                    }
                    _ => {}
                }
            }
        }
    }
    text
}

/// A `crewgraph serve` child with its output read on threads.
struct Served {
    child: Child,
    addr: String,
    output: Arc<Mutex<String>>,
}

impl Served {
    fn start(dir: &Path, db: &Path) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crewgraph"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db", db.to_str().unwrap(), "--crews", dir.to_str().unwrap()])
            .current_dir(dir)
            .env("CREWGRAPH_TOKEN", SERVE_TOKEN)
            .env("OPENAI_API_KEY", ENV_KEY)
            .env(GATE_VAR, GATE_TOKEN)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("crewgraph serve starts");
        let output = Arc::new(Mutex::new(String::new()));
        let (first, read) = std::sync::mpsc::channel();
        for pipe in [Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>, Box::new(child.stderr.take().unwrap())] {
            let (output, first) = (output.clone(), first.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    let _ = first.send(line.clone());
                    output.lock().unwrap().push_str(&format!("{line}\n"));
                }
            });
        }
        let deadline = Instant::now() + COMMAND_LIMIT;
        let addr = loop {
            let line =
                read.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("crewgraph serve says where it listens");
            if let Some(addr) = line.strip_prefix("crewgraph serve: listening on http://") {
                break addr.to_owned();
            }
        };
        Served { child, addr, output }
    }

    /// `GET path` with the server's token; the whole answer, head and body.
    fn get(&self, path: &str) -> String {
        let mut stream = TcpStream::connect(&self.addr).expect("connect to crewgraph serve");
        stream.set_read_timeout(Some(COMMAND_LIMIT)).unwrap();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {SERVE_TOKEN}\r\nAccept: application/json\r\nConnection: close\r\n\r\n", self.addr).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("an answer");
        assert!(answer.starts_with("HTTP/1.1 200"), "GET {path}: {answer}");
        answer
    }

    /// Stops the server (SIGTERM) and returns all it printed.
    fn stop(mut self) -> String {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) on the child this test started and has not reaped.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let deadline = Instant::now() + COMMAND_LIMIT;
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "crewgraph serve did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
        let output = self.output.lock().unwrap().clone();
        output
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
#[ignore = "needs a Secret Service: scripts/test-secrets.sh runs it (make test)"]
fn keyring_a_key_in_every_place_reaches_its_server_and_nothing_else() {
    require("private");
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path();
    let db = dir.join("runs.db");
    let db_arg = db.to_str().unwrap();
    let desk = Desk::start();
    let host = desk.base.trim_start_matches("http://").to_owned();
    let mut written = Written::default();

    // The places.
    let set = cg(dir, &["keys", "set", "secrets-keyring"], KEYRING_KEY);
    assert_eq!(set.code, 0, "the key is stored: {}", set.stderr);
    written.add_run("keys set", &set);
    let models: [(&str, String, &str); 4] = [
        ("kr", format!("{}/kr/v1", desk.base), "secrets-keyring"),
        ("en", format!("{}/en/v1", desk.base), "openai"),
        ("qu", format!("{}/qu/v1?api-key={URL_KEY}", desk.base), "secrets-none"),
        ("ec", format!("{}/echo401/v1", desk.base), "secrets-keyring"),
    ];
    for (name, url, key) in &models {
        let added = add_model(dir, &db, name, url, Some(key));
        assert_eq!(added.code, 0, "model {name} is added: {}", added.stderr);
        written.add_run(&format!("models add {name}"), &added);
    }
    // A user:password in the address: refused, or at least never shown or kept.
    let userinfo_url = format!("http://crew:{USERINFO_KEY}@{host}/ui/v1");
    let userinfo = add_model(dir, &db, "ui", &userinfo_url, None);
    written.add_run("models add ui (a password in the URL)", &userinfo);

    // The runs: one per model, and one routed by the gatekeeper.
    let crew = dir.join("two-steps.yaml");
    std::fs::write(&crew, TWO_STEP_CREW).unwrap();
    let mut ids = Vec::new();
    let mut model_names: Vec<&str> = models.iter().map(|(name, _, _)| *name).collect();
    if userinfo.code == 0 {
        model_names.push("ui");
    }
    for name in model_names {
        let run = run_crew(dir, &db, &crew, name);
        let refused = name == "ec";
        assert_eq!(run.code, i32::from(refused), "the run on {name}: {}\n{}", run.stdout, run.stderr);
        if refused {
            assert!(run.stderr.contains("the API key was refused (401)"), "{}", run.stderr);
        }
        ids.push(run_id_of(&run));
        written.add_run(&format!("run on {name}"), &run);
    }
    let gated = dir.join("gated.yaml");
    std::fs::write(
        &gated,
        format!(
            "version: \"1.0\"\nname: Gated\nentry_point: lead\nrouting:\n  strategy: gatekeeper\n  gatekeeper:\n    url: \"{}/route\"\n    \
             timeout: 5s\n    retries: 1\n    token_env: {GATE_VAR}\nagents:\n  - {{ id: lead, role: Plans }}\n  - {{ id: writer, role: Writes }}\n",
            desk.base
        ),
    )
    .unwrap();
    let script = dir.join("gated-replies.yaml");
    std::fs::write(&script, "replies:\n  lead:\n    - \"Plan: nothing more to do.\"\n").unwrap();
    let run =
        cg(dir, &["run", gated.to_str().unwrap(), "--input", "A note", "--script", script.to_str().unwrap(), "--json", "--db", db_arg], "");
    assert_eq!(run.code, 0, "the gated run: {}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("you sent Bearer [hidden]"), "the gatekeeper's echo is kept, blanked: {}", run.stdout);
    ids.push(run_id_of(&run));
    written.add_run("the gated run", &run);

    // Each key reached its own server.
    let bearer = |path: &str, key: &str| {
        let requests = desk.requests_to(path);
        assert!(!requests.is_empty(), "{path} was asked");
        assert!(requests.iter().all(|r| r.contains(&format!("Bearer {key}"))), "{path} got its key: {requests:#?}");
    };
    bearer("/kr/", KEYRING_KEY);
    bearer("/en/", ENV_KEY);
    bearer("/echo401/", KEYRING_KEY);
    bearer("/route", GATE_TOKEN);
    let query = desk.requests_to("/qu/");
    assert!(!query.is_empty() && query.iter().all(|r| r.lines().next().unwrap().contains(&format!("api-key={URL_KEY}"))), "{query:#?}");
    assert!(query.iter().all(|r| !r.contains("Bearer")), "a model whose key is nowhere sends none: {query:#?}");

    // What a person can read back: listings, replays, recordings.
    for args in [vec!["models"], vec!["models", "--json"], vec!["runs", "--json"]] {
        let run = cg(dir, &[args.clone(), vec!["--db", db_arg]].concat(), "");
        written.add_run(&args.join(" "), &run);
    }
    written.add_run("keys", &cg(dir, &["keys"], ""));
    for id in &ids {
        let replay = cg(dir, &["replay", id, "--json", "--db", db_arg], "");
        assert_eq!(replay.code, 0, "{}", replay.stderr);
        written.add_run(&format!("replay {id}"), &replay);
        written.add(format!("replay {id} (text)"), cg(dir, &["replay", id, "--db", db_arg], "").stdout);
    }
    let api = Api::new(dir).with_sqlite(Arc::new(SqliteStore::open(&db).expect("the store opens")));
    block_on(async {
        for id in &ids {
            let file = dir.join(format!("{id}.recording.json"));
            api.export_run(&RunId::from(id.as_str()), &file).await.expect("the run is exported");
            written.add(format!("the recording of {id}"), std::fs::read(&file).unwrap());
        }
        let views = api.list_models(false).await.unwrap();
        written.add("Settings' model list", serde_json::to_vec(&views).unwrap());
    });
    drop(api);

    let served = Served::start(dir, &db);
    for path in ["/models", "/runs"]
        .into_iter()
        .map(str::to_owned)
        .chain(ids.iter().flat_map(|id| [format!("/runs/{id}/recording"), format!("/runs/{id}/events")]))
    {
        written.add(format!("GET {path}"), served.get(&path));
    }
    written.add("crewgraph serve's output", served.stop());

    // The database: no key in its files, but the query key in the settings.
    let mut database = Written::default();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with("runs.db") {
            database.add(format!("the database file {}", entry.file_name().to_string_lossy()), std::fs::read(entry.path()).unwrap());
        }
    }
    for (secret, name) in [
        (KEYRING_KEY, "the keyring's key"),
        (ENV_KEY, "the environment's key"),
        (GATE_TOKEN, "the gatekeeper's token"),
        (USERINFO_KEY, "the password in a base URL"),
        (SERVE_TOKEN, "the server's token"),
    ] {
        written.assert_nowhere(secret, name);
        database.assert_nowhere(secret, name);
    }
    written.assert_nowhere(URL_KEY, "the key in a base URL's query");
    let mut rows = Written::default();
    rows.add("the database's tables but settings", rows_outside_settings(&db));
    rows.assert_nowhere(URL_KEY, "the key in a base URL's query");

    assert_eq!(cg(dir, &["keys", "remove", "secrets-keyring"], "").code, 0);
}
