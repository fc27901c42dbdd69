//! Running the binary and reading what it did.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The `crewgraph` binary of this package.
pub fn crewgraph() -> Command {
    Command::cargo_bin("crewgraph").expect("the crewgraph binary is built for integration tests")
}

/// The repository root (where `crews/` is).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().unwrap()
}

/// Runs a future to its end on a runtime of two worker threads (the API's background
/// runs get threads of their own, as in the app).
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(future)
}

/// The options of a window's run (or resume) in Simulate mode with the script file
/// at `path`.
pub fn scripted(path: &str) -> crewgraph::api::RunOptions {
    let replies = crewgraph::api::Replies { script_file: Some(path.to_owned()), ..Default::default() };
    replies.options(&crewgraph::api::Api::new(".")).expect("a script file is a run's replies")
}

/// Copies a folder and everything in it (a crew folder into a sandbox).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The engine's test fixtures: small crew files, each with one kind of mistake.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures").canonicalize().unwrap()
}

/// What a run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout split into lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

/// Runs `crewgraph ARGS` in `dir`, with `stdin` as standard input.
pub fn run_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let output = crewgraph().current_dir(dir).args(args).write_stdin(stdin).output().expect("crewgraph runs");
    Run {
        code: output.status.code().expect("exited, not killed by a signal"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `crewgraph ARGS` in the engine's fixtures folder.
pub fn run_on_fixtures(args: &[&str]) -> Run {
    run_in(&fixtures(), args, "")
}

/// A small seeded random source (SplitMix64) for the soak and chaos tests: the
/// same seed makes the same choices, so a failure is replayed by its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The seed in the environment variable `var` (to replay a failure), else a new one.
pub fn seed_from(var: &str) -> u64 {
    match std::env::var(var) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("{var} is a number (a seed printed by an earlier run): {text:?}")),
        Err(_) => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            (now.as_nanos() as u64) ^ u64::from(std::process::id())
        }
    }
}

/// One HTTP/1.1 request read from `stream` by the tests' small blocking servers: its
/// head (the request line and headers, each line with its CRLF) and its
/// `Content-Length` body.
pub fn read_request(stream: &std::net::TcpStream) -> (String, Vec<u8>) {
    use std::io::{BufRead, Read};
    let mut reader = std::io::BufReader::new(stream);
    let mut head = String::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    (head, body)
}

/// A teacher asking and a student answering until the teacher ends it: the crew of
/// the tests that drive runs step by step (`breakpoints`, `fork`).
pub const DRILL: &str = r#"name: Drill
entry_point: teacher
agents:
  - { id: teacher, system_prompt: Ask. }
  - { id: student, system_prompt: Answer. }
routing:
  signals:
    teacher:
      - { signal: "[QUESTION]", target: student }
      - { signal: "[END]", target: "" }
    student:
      - { signal: "[ANSWER]", target: teacher }
"#;
