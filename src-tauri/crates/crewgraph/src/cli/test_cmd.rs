//! `crewgraph test CREW [--probes FILE] [--model M] [--json]`: route coverage.
//! Without probes, one Simulate run per arrow (no model called); with probes, each
//! request on a real model. Prints a table of the arrows and how often they were
//! taken (why never, when no run can take one), the scenarios or probe runs, and
//! whether the crew passed; `--json` prints the report as one JSON document. Exit 0
//! when every arrow was taken and every scenario ended as planned (every probe's
//! expectation met), 1 otherwise — a broken crew or probes file too, its problems on
//! stderr at `file:line:col`.

use std::path::Path;
use std::process::ExitCode;

use crewgraph::api::operations::TestCrew;
use crewgraph::api::{CrewTest, TestMode};

use super::block_on;
use super::store::{open_api, open_existing};
use super::terminal::{say, tell};

pub struct TestArgs<'a> {
    pub crew: &'a Path,
    pub probes: Option<&'a Path>,
    pub model: Option<String>,
    pub json: bool,
    pub db: Option<&'a Path>,
}

pub fn run(args: TestArgs) -> ExitCode {
    let request = TestCrew {
        crew: args.crew.display().to_string(),
        probes: None,
        probes_file: args.probes.map(|p| p.display().to_string()),
        model: args.model.clone(),
    };
    // Probes run on the models of the database (made when missing, as `run` does);
    // Simulate scenarios need it only for the crew's runtime agents.
    let api = if args.probes.is_some() { open_api(args.db).map(Some) } else { open_existing(args.db) };
    let api = match api {
        Ok(Some(api)) => api,
        Ok(None) => crewgraph::api::Api::new("crews"),
        Err(error) => {
            tell!("crewgraph: {error}");
            return ExitCode::FAILURE;
        }
    };
    let report = block_on(async {
        let probes = request.probes(&api)?;
        api.test_crew(args.crew, probes.as_ref(), request.model.as_deref()).await
    });
    let report = match report {
        Ok(Ok(report)) => report,
        Ok(Err(error)) => {
            tell!("crewgraph: {}", error.message);
            return ExitCode::FAILURE;
        }
        Err(error) => {
            tell!("crewgraph: {error}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => say!("{json}"),
            Err(error) => {
                tell!("crewgraph: the report does not encode: {error}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        say!("{}", table(&report, args.model.as_deref()));
    }
    if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Rows as columns padded to their widest cell (the last column unpadded).
fn columns(rows: &[Vec<String>]) -> String {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..count).map(|i| rows.iter().filter_map(|r| r.get(i)).map(|c| c.chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The report as a person reads it.
pub fn table(report: &CrewTest, model: Option<&str>) -> String {
    let mut out = String::new();
    let arrow = |id: &str| {
        report.arrows.iter().find(|a| a.id == id).map_or_else(|| id.to_owned(), |a| format!("{} → {}  {}", a.from, a.to, a.label))
    };
    match report.mode {
        TestMode::Scenarios => out.push_str(&format!(
            "Route coverage of {}: {} in Simulate, one for each arrow a run can take (no model called)\n\n",
            report.crew,
            plural(report.runs, "scenario", "scenarios")
        )),
        TestMode::Probes => {
            let probes = report.probes.iter().map(|p| p.place.as_str()).collect::<std::collections::BTreeSet<_>>().len() as u32;
            out.push_str(&format!(
                "Route coverage of {}: {} on {}, {}\n\n",
                report.crew,
                plural(probes, "probe", "probes"),
                model.map_or_else(|| "the agents' own models".to_owned(), |m| format!("model {m}")),
                plural(report.runs, "run", "runs")
            ));
        }
    }

    let mut rows = vec![vec!["ARROW".to_owned(), "TAKEN".to_owned()]];
    for a in &report.arrows {
        let taken = match (a.taken, &a.unreachable) {
            (0, Some(why)) => format!("never: {why}"),
            (0, None) => "never".to_owned(),
            (1, _) if report.runs == 1 => "taken".to_owned(),
            (n, _) if report.runs == 1 => format!("{n} times"),
            (n, _) if n == a.runs => format!("in {} of {} runs", a.runs, report.runs),
            (n, _) => format!("{}, in {} of {} runs", plural(n, "time", "times"), a.runs, report.runs),
        };
        rows.push(vec![format!("{} → {}  {}", a.from, a.to, a.label), taken]);
    }
    out.push_str(&columns(&rows));

    let unreached: Vec<String> = report
        .agents
        .iter()
        .filter(|a| !a.reached)
        .map(|a| format!("  {}: {}", a.name, a.unreached.as_deref().unwrap_or("no run gave it work")))
        .collect();
    if !unreached.is_empty() {
        out.push_str(&format!("\nAgents no run gave work:\n{}\n", unreached.join("\n")));
    }

    match report.mode {
        TestMode::Scenarios => {
            let mut rows = vec![vec!["SCENARIO".to_owned(), "FOR THE ARROW".to_owned(), "ENDED".to_owned(), String::new()]];
            for (n, s) in report.scenarios.iter().enumerate() {
                let verdict = match &s.problem {
                    None => "ok".to_owned(),
                    Some(problem) => format!("FAILED: {problem}"),
                };
                rows.push(vec![(n + 1).to_string(), arrow(&s.arrow), s.status.as_str().to_owned(), verdict]);
            }
            out.push('\n');
            out.push_str(&columns(&rows));
        }
        TestMode::Probes => {
            let mut rows = vec![vec!["AGENT".to_owned(), "REPLIES".to_owned(), "WITHOUT A SIGNAL".to_owned()]];
            for a in report.agents.iter().filter(|a| a.replies > 0) {
                let share = if a.without_signal == 0 {
                    "0".to_owned()
                } else {
                    format!("{} ({} %)", a.without_signal, a.without_signal * 100 / a.replies)
                };
                rows.push(vec![a.name.clone(), a.replies.to_string(), share]);
            }
            out.push('\n');
            out.push_str(&columns(&rows));
            let mut rows = vec![vec!["PROBE".to_owned(), "RUN".to_owned(), "ENDED".to_owned(), String::new()]];
            for p in &report.probes {
                let input: String = p.input.chars().take(40).collect::<String>().replace('\n', " ");
                let ended = match &p.final_agent {
                    Some(agent) => format!("{}, {agent} last", p.status.as_str()),
                    None => p.status.as_str().to_owned(),
                };
                let verdict = match &p.problem {
                    None => "ok".to_owned(),
                    Some(problem) => format!("FAILED: {problem}"),
                };
                let probe = if p.attempt == 1 { format!("{} {input}", p.place) } else { String::new() };
                rows.push(vec![probe, p.attempt.to_string(), ended, verdict]);
            }
            out.push('\n');
            out.push_str(&columns(&rows));
            let cost = match report.cost_per_run {
                Some(cost) => format!("${cost:.4}"),
                None => "cost unknown (no price set for the models)".to_owned(),
            };
            out.push_str(&format!(
                "\nPer run: {:.1} handoffs · {:.0} tokens · {cost}; {} in all\n",
                report.handoffs_per_run,
                report.tokens_per_run,
                plural(report.loops, "loop", "loops")
            ));
        }
    }

    for note in &report.notes {
        out.push_str(&format!("\nNote: {note}\n"));
    }

    let never: Vec<String> = report.arrows.iter().filter(|a| a.taken == 0).map(|a| format!("{} → {}", a.from, a.to)).collect();
    let failed = report.scenarios.iter().filter(|s| !s.passed).count() + report.probes.iter().filter(|p| !p.passed).count();
    out.push('\n');
    if report.passed {
        out.push_str(match report.mode {
            TestMode::Scenarios => "Passed: every arrow was taken, and every scenario ended as planned.",
            TestMode::Probes => "Passed: every arrow was taken, and every probe ended as expected.",
        });
    } else {
        let mut why = Vec::new();
        if !never.is_empty() {
            why.push(format!("{} never taken ({})", plural(never.len() as u32, "arrow is", "arrows are"), never.join(", ")));
        }
        if failed > 0 {
            let what = if report.mode == TestMode::Scenarios { ("scenario", "scenarios") } else { ("probe run", "probe runs") };
            why.push(format!("{} failed", plural(failed as u32, what.0, what.1)));
        }
        out.push_str(&format!("Failed: {}.", why.join("; ")));
    }
    out
}
