//! Every example crew on the built-in local model, as a person's first run is (issue
//! 22): `crewgraph run crews/X --input …` with no model configured, one after the
//! other, each with a fresh database. One table for BENCHMARKS.md: the final
//! status, wall time, turns, tokens read and written, handoffs, and how often the
//! history was trimmed to fit the model's context window.
//!
//! `cargo bench -p crewgraph --bench local_crews` (needs `scripts/setup-local-model.sh`).
//! `LOCAL_CREWS_RUNS` runs each crew that many times (default 1): a 135M model's
//! choices vary from run to run, so more runs show the spread. `LOCAL_CREWS_BEFORE`
//! names another `crewgraph` binary (an older build) to run too, crew by crew in
//! turn with this one, so both are measured in the same minutes. `LOCAL_CREWS_ONLY`
//! names one crew (`exam.yaml`) to run alone.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The example crews and what a person would ask each.
const CREWS: &[(&str, &str)] = &[
    ("exam.yaml", "Please begin."),
    ("code-review.yaml", "Task T-1: add a logout button to the page header."),
    ("research-loop.yaml", "Write a short article about the history of tea."),
    ("support-triage.yaml", "I was charged twice on my invoice and want a refund"),
    ("thi-van-dap.yaml", "Bắt đầu bài thi."),
    ("go-quiz", "Start the quiz."),
    ("note-desk.yaml", "Note that the team meets on Friday at ten, then tell me what you noted."),
    ("gatekeeper-desk.yaml", "My parcel has not arrived after two weeks."),
];

fn main() {
    let runs: usize = std::env::var("LOCAL_CREWS_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(1).max(1);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let mut clis = vec![("now", PathBuf::from(env!("CARGO_BIN_EXE_crewgraph")))];
    if let Some(before) = std::env::var_os("LOCAL_CREWS_BEFORE") {
        clis.insert(0, ("before", PathBuf::from(before)));
    }
    let scratch = std::env::temp_dir().join(format!("crewgraph-local-crews-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    // The gatekeeper desk asks `crewgraph serve` at its usual address (its POST /gatekeeper).
    let gatekeeper = std::net::TcpListener::bind("127.0.0.1:7878").is_ok().then(|| {
        Command::new(&clis[clis.len() - 1].1)
            .args(["serve", "--addr", "127.0.0.1:7878", "--db"])
            .arg(scratch.join("gatekeeper.db"))
            .arg("--crews")
            .arg(repo.join("crews"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("crewgraph serve starts")
    });
    if gatekeeper.is_none() {
        eprintln!("127.0.0.1:7878 is taken: the gatekeeper desk's runs ask whatever answers there");
    }
    let asked = Instant::now();
    while gatekeeper.is_some()
        && std::net::TcpStream::connect("127.0.0.1:7878").is_err()
        && asked.elapsed() < std::time::Duration::from_secs(30)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    println!("| crew | build | run | status | wall | turns | tokens read / written | handoffs | trimmed |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let only = std::env::var("LOCAL_CREWS_ONLY").ok();
    for (crew, input) in CREWS.iter().filter(|(crew, _)| only.as_deref().is_none_or(|only| only == *crew)) {
        let path = repo.join("crews").join(crew);
        if !path.exists() {
            continue;
        }
        for (run, (build, cli)) in (1..=runs).flat_map(|run| clis.iter().map(move |cli| (run, cli))) {
            let db = scratch.join(format!("{crew}-{build}-{run}.db"));
            let started = Instant::now();
            let output = Command::new(cli)
                .arg("run")
                .arg(&path)
                .args(["--input", input, "--json", "--db"])
                .arg(&db)
                .output()
                .expect("crewgraph runs");
            let wall = started.elapsed();
            let figures = Figures::of(&String::from_utf8_lossy(&output.stdout));
            println!(
                "| {crew} | {build} | {run} | {} | {:.1} s | {} | {} / {} | {} | {} |",
                figures.status.as_deref().unwrap_or("(no end: see stderr)"),
                wall.as_secs_f64(),
                figures.turns,
                figures.read,
                figures.written,
                figures.handoffs,
                figures.trimmed
            );
            if figures.status.as_deref() == Some("failed") {
                println!("|   |   | error | {} | | | | | |", figures.error.unwrap_or_default().replace('|', "/"));
            }
        }
    }
    if let Some(mut server) = gatekeeper {
        let _ = server.kill();
        let _ = server.wait();
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// What a run's JSON lines add up to.
#[derive(Default)]
struct Figures {
    status: Option<String>,
    error: Option<String>,
    turns: usize,
    read: u64,
    written: u64,
    handoffs: u64,
    trimmed: usize,
}

impl Figures {
    fn of(lines: &str) -> Figures {
        let mut figures = Figures::default();
        for event in lines.lines().filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok()) {
            match event["type"].as_str() {
                Some("agent_response") => {
                    figures.turns += 1;
                    figures.read += event["usage"]["input_tokens"].as_u64().unwrap_or(0);
                    figures.written += event["usage"]["output_tokens"].as_u64().unwrap_or(0);
                }
                Some("history_trimmed") => figures.trimmed += 1,
                Some("run_finished") => {
                    figures.status = event["status"].as_str().map(str::to_owned);
                    figures.error = event["error"].as_str().map(str::to_owned);
                    figures.handoffs = event["handoffs"].as_u64().unwrap_or(0);
                }
                _ => {}
            }
        }
        figures
    }
}
