//! `crewgraph test` (route coverage, issue 18 item 5) through the binary: every
//! example crew's Simulate scenarios — the table as snapshots, the JSON report's
//! verdicts, exactly which arrows no run can take and why; a crew with arrows no run
//! can take; a broken probes file, each problem at `file:line:col` in plain words;
//! and probes on the built-in local model (SmolLM2), whose choices vary, so only
//! shapes are checked there.

use std::time::Duration;

use serde_json::Value;

use crate::e2e::Sandbox;
use crate::support::repo_root;

/// The example crews, as `crews/…` paths (the files and the crew folders).
fn examples() -> Vec<String> {
    let crews = repo_root().join("crews");
    let mut names: Vec<String> = std::fs::read_dir(&crews)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") || p.join("crew.yaml").is_file())
        .map(|p| format!("crews/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    names.sort();
    names
}

/// `crewgraph test ARGS --db <the sandbox's>` from the repository root.
fn test(sandbox: &Sandbox, args: &[&str]) -> crate::support::Run {
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    sandbox.cg(&all)
}

/// The arrows the report says no run can take, with why.
fn unreachable(report: &Value) -> Vec<(String, String)> {
    report["arrows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["taken"] == 0)
        .map(|a| (a["id"].as_str().unwrap().to_owned(), a["unreachable"].as_str().unwrap_or("(no reason)").to_owned()))
        .collect()
}

#[test]
fn every_example_crew_has_every_arrow_taken() {
    let sandbox = Sandbox::new();
    let crews = examples();
    assert!(crews.len() >= 9, "{crews:?}");
    // Under `llm` and `gatekeeper` the entry point asks the router and is never
    // handed work again (routing.md): no arrow is drawn that no run can take.
    for crew in &crews {
        let run = test(&sandbox, &[crew, "--json"]);
        let report: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{crew}: one JSON document ({e}): {run:?}"));
        assert_eq!(unreachable(&report), Vec::<(String, String)>::new(), "{crew}");
        assert_eq!(run.code, 0, "{crew}: {}", run.stderr);
        assert_eq!(report["passed"], true, "{crew}");
        // Every scenario took its arrow and ended as planned, in a final status.
        let scenarios = report["scenarios"].as_array().unwrap();
        assert_eq!(scenarios.len(), report["arrows"].as_array().unwrap().len(), "{crew}: one scenario per arrow");
        for scenario in scenarios {
            assert_eq!(
                (scenario["passed"].clone(), scenario["took_arrow"].clone()),
                (Value::Bool(true), Value::Bool(true)),
                "{crew}: {scenario}"
            );
            assert!(matches!(scenario["status"].as_str(), Some("terminated" | "completed")), "{crew}: {scenario}");
            assert_eq!(scenario["status"], scenario["expected"], "{crew}");
        }
        assert!(report["agents"].as_array().unwrap().iter().all(|a| a["reached"] == true), "{crew}: every agent works");
        // The table, as a person reads it.
        let table = test(&sandbox, &[crew]);
        assert_eq!(table.code, run.code, "{crew}");
        let name = crew.trim_start_matches("crews/").trim_end_matches(".yaml").replace('-', "_");
        insta::assert_snapshot!(format!("coverage_{name}"), table.stdout);
    }
}

#[test]
fn a_scenario_s_script_runs_as_a_simulate_run_of_its_own() {
    // The script in the report replays with `crewgraph run --script`: the same arrows.
    let sandbox = Sandbox::new();
    let run = test(&sandbox, &["crews/code-review.yaml", "--json"]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let failed = report["scenarios"].as_array().unwrap().iter().find(|s| s["arrow"] == "rule:auditor:1:agent:developer").unwrap();
    let script = sandbox.write("scenario.yaml", failed["script"].as_str().unwrap());
    let replay = sandbox.cg(&[
        "run",
        "crews/code-review.yaml",
        "--input",
        failed["input"].as_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(replay.code, 0, "{}", replay.stderr);
    let handoffs: Vec<String> = replay
        .lines()
        .iter()
        .map(|l| crate::e2e::parse(l))
        .filter(|e| e["type"] == "handoff")
        .map(|e| format!("{}→{}", e["from"].as_str().unwrap(), e["to"].as_str().unwrap()))
        .collect();
    assert_eq!(handoffs, ["developer→critic", "critic→auditor", "auditor→developer", "developer→critic", "critic→auditor"]);
}

/// A crew whose drawing has arrows no run can take, each for its own reason.
const TANGLED: &str = r#"
name: Tangled
entry_point: host
max_handoffs: 3
agents:
  - { id: host, handoff_targets: [helper, far] }
  - { id: helper }
  - { id: far }
  - { id: lonely, is_terminal: true }
  - { id: ghost, is_terminal: true }
signals:
  - { name: "[GO]", behavior: route }
  - { name: "[DONE]", behavior: terminate }
  - { name: stop, pattern: '^TICKET', behavior: terminate }
  - { name: ticket, pattern: '^TICKET (\d+)$', behavior: route }
  - { name: code, pattern: '^[xyz]{7}$', behavior: route }
routing:
  signals:
    host:
      - { signal: "[GO]", target: helper }
      - { signal: "[DONE]", target: "" }
      - { signal: ticket, target: lonely }
      - { signal: stop, target: "" }
      - { signal: code, target: ghost }
    helper:
      - { signal: "[GO]", target: far }
    far:
      - { signal: "[GO]", target: host }
"#;

#[test]
fn arrows_no_run_can_take_are_listed_with_why_and_the_test_fails() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("tangled.yaml", TANGLED);
    let run = test(&sandbox, &[crew.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let never = |why: &str| format!("no run from host (where runs start) gives {why} work: no arrow a run takes leads to it");
    assert_eq!(
        unreachable(&report),
        [
            (
                "rule:host:2:agent:lonely".to_owned(),
                "a reply with ticket is taken by host's rule on stop first (terminate, then pause, then routes in file order)".to_owned()
            ),
            (
                "rule:host:4:agent:ghost".to_owned(),
                "no reply line could be written that the pattern of code matches, so no scenario takes it".to_owned()
            ),
            ("rule:far:0:agent:host".to_owned(), "it takes 3 transfers to get there, and max_handoffs 3 allows 2 transfers".to_owned()),
            ("fallback:host:agent:far".to_owned(), "only host's first otherwise arrow (to helper) is ever taken".to_owned()),
            ("terminal:lonely:end".to_owned(), never("lonely")),
            ("terminal:ghost:end".to_owned(), never("ghost")),
        ]
    );
    // After helper → far the work can only go back to host, a transfer too many: the
    // scenario takes its arrow and is stopped by the limit.
    let far = report["scenarios"].as_array().unwrap().iter().find(|s| s["arrow"] == "rule:helper:0:agent:far").unwrap();
    assert_eq!(
        (far["took_arrow"].clone(), far["status"].clone(), far["passed"].clone()),
        (Value::Bool(true), Value::from("max_handoffs"), Value::Bool(false))
    );
    let lonely = report["agents"].as_array().unwrap().iter().find(|a| a["agent"] == "lonely").unwrap();
    assert_eq!(lonely["reached"], false);
    let table = test(&sandbox, &[crew.to_str().unwrap()]);
    insta::assert_snapshot!("coverage_tangled", table.stdout.replace(crew.to_str().unwrap(), "tangled.yaml"));
}

#[test]
fn a_broken_probes_file_is_refused_with_each_problem_at_file_line_col_in_plain_words() {
    let sandbox = Sandbox::new();
    let probes = sandbox.write(
        "probes.yaml",
        "probes:\n  - Start the exam\n  - input: Ask once\n    final_agent: principal\n    status: finished\n    repeat: 0\n    expect: teacher\n  - input: \"  \"\n",
    );
    let path = probes.to_str().unwrap();
    let run = test(&sandbox, &["crews/exam.yaml", "--probes", path, "--model", "local"]);
    // Every problem at once, in file order, before anything runs.
    assert_eq!((run.code, run.stdout.as_str()), (1, ""), "{}", run.stderr);
    insta::assert_snapshot!("coverage_broken_probes", run.stderr.replace(path, "probes.yaml"));
    // YAML that does not read, and a file that is not there.
    std::fs::write(&probes, "probes:\n  - input: \"unclosed\n").unwrap();
    let run = test(&sandbox, &["crews/exam.yaml", "--probes", path]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with(&format!("crewgraph: {path}:2:")), "{}", run.stderr);
    let run = test(&sandbox, &["crews/exam.yaml", "--probes", "nowhere.yaml"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with("crewgraph: nowhere.yaml:1:1: the probes file cannot be read"), "{}", run.stderr);
    // A model is for probes.
    let run = test(&sandbox, &["crews/exam.yaml", "--model", "local"]);
    assert_eq!(run.code, 2, "a usage error: {}", run.stderr);
}

#[test]
fn probes_run_on_the_local_model_and_report_arrows_compliance_loops_and_runs() {
    // The built-in llama-server with SmolLM2 (`make deps`), one run at a time. The
    // research loop's agents each have a signal to end with, and the local model is
    // held to them: a run makes at least researcher → writer → editor → judge.
    let _alone = crate::first_run::ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let sandbox = Sandbox::new();
    let probes = sandbox.write(
        "probes.yaml",
        "probes:\n  - input: \"Write a short article on city bees.\"\n    status: terminated\n    final_agent: judge\n",
    );
    let db = sandbox.db();
    let output = crate::support::crewgraph()
        .current_dir(repo_root())
        .args([
            "test",
            "crews/research-loop.yaml",
            "--probes",
            probes.to_str().unwrap(),
            "--model",
            "local",
            "--json",
            "--db",
            db.to_str().unwrap(),
        ])
        .timeout(Duration::from_secs(600))
        .output()
        .expect("crewgraph runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("one JSON document ({e}): {output:?}"));
    assert_eq!((report["mode"].as_str(), report["runs"].as_u64()), (Some("probes"), Some(1)), "{report:#}");
    let probe = &report["probes"][0];
    assert_eq!(probe["place"], format!("{}:2:12", probes.display()));
    let status = probe["status"].as_str().unwrap();
    assert!(!matches!(status, "failed" | "running"), "the run ended: {probe}");
    // The expectation holds exactly when the run ended so.
    let met = status == "terminated" && probe["final_agent"] == "judge";
    assert_eq!((probe["passed"].as_bool(), probe["problem"].is_null()), (Some(met), met), "{probe}");
    // Each transfer took one arrow, and a terminate signal one more (into End).
    let handoffs = probe["handoffs"].as_u64().unwrap();
    assert!(handoffs >= 3, "{probe}");
    let taken: u64 = report["arrows"].as_array().unwrap().iter().map(|a| a["taken"].as_u64().unwrap()).sum();
    assert_eq!(taken, handoffs + u64::from(status == "terminated"), "{report:#}");
    assert_eq!(report["handoffs_per_run"].as_f64(), Some(handoffs as f64));
    assert_eq!(report["loops"], probe["loops"]);
    if status == "loop_detected" {
        assert!(probe["loops"].as_u64().unwrap() >= 1, "{probe}");
    }
    // The local model is held to its agents' signals: no reply lacks one.
    for agent in report["agents"].as_array().unwrap() {
        assert_eq!(agent["without_signal"], 0, "{agent}");
    }
    assert!(report["agents"].as_array().unwrap().iter().filter(|a| a["replies"].as_u64() > Some(0)).count() >= 4, "{report:#}");
    assert!(probe["tokens"].as_u64().unwrap() > 0, "the local model reports usage: {probe}");
    let all_taken = report["arrows"].as_array().unwrap().iter().all(|a| a["taken"].as_u64() > Some(0));
    assert_eq!(report["passed"].as_bool(), Some(met && all_taken));
    assert_eq!(output.status.code(), Some(if met && all_taken { 0 } else { 1 }));
}
