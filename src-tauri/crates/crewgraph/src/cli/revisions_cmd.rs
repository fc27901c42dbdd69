//! `crewgraph revisions CREW` (a crew's history: each revision with what changed
//! in words and its runs) and `crewgraph diff CREW FROM TO` (two revisions
//! compared: every change in words, changed instructions as line diffs).

use std::path::Path;
use std::process::ExitCode;

use crewgraph::api::{RevisionDiff, RevisionView};
use crewgraph_engine::file::diff::LineKind;

use super::block_on;
use super::store::open_existing;
use super::terminal::{say, tell};

pub fn list(crew: &Path, db: Option<&Path>, json: bool) -> ExitCode {
    let api = match open_existing(db) {
        Ok(Some(api)) => api,
        Ok(None) => {
            tell!(
                "crewgraph: no revision of {} is kept yet (there is no database yet): each save in the window and each run keeps one",
                crew.display()
            );
            return ExitCode::FAILURE;
        }
        Err(error) => return super::fail(error),
    };
    let revisions = match block_on(api.list_revisions(crew)) {
        Ok(Ok(revisions)) => revisions,
        Ok(Err(error)) => return super::fail(error),
        Err(error) => return super::fail(error),
    };
    if json {
        for revision in &revisions {
            if let Ok(line) = serde_json::to_string(revision) {
                say!("{line}");
            }
        }
        return ExitCode::SUCCESS;
    }
    if revisions.is_empty() {
        say!("No revision of {} is kept yet: each save in the window and each run keeps one.", crew.display());
    }
    for revision in &revisions {
        print_revision(revision);
    }
    ExitCode::SUCCESS
}

fn print_revision(revision: &RevisionView) {
    let now = if revision.current { "  (the files as they are now)" } else { "" };
    say!("Revision {} · {} · {}{now}", revision.revision, revision.saved_at, revision.name);
    match (revision.previous, revision.changes.as_slice()) {
        (None, _) => say!("  the first revision kept"),
        (Some(_), []) => say!("  only how the file is written changed"),
        (Some(_), changes) => {
            for change in changes {
                say!("  - {change}");
            }
        }
    }
    for run in &revision.runs {
        let cost = run.tokens.cost_usd.map(|usd| format!(" · ${usd:.4}")).unwrap_or_default();
        say!("  run {} · {} · {} steps{cost}", run.id, run.status.as_str(), run.steps);
    }
}

pub fn diff(crew: &Path, from: u32, to: u32, to_crew: Option<&Path>, db: Option<&Path>, json: bool) -> ExitCode {
    let api = match open_existing(db) {
        Ok(Some(api)) => api,
        Ok(None) => {
            tell!("crewgraph: no revision of {} is kept yet (there is no database yet)", crew.display());
            return ExitCode::FAILURE;
        }
        Err(error) => return super::fail(error),
    };
    let compared = match block_on(api.diff_revisions(crew, from, to, to_crew)) {
        Ok(Ok(compared)) => compared,
        Ok(Err(error)) => return super::fail(error),
        Err(error) => return super::fail(error),
    };
    if json {
        match serde_json::to_string(&compared) {
            Ok(line) => say!("{line}"),
            Err(error) => return super::fail(error),
        }
        return ExitCode::SUCCESS;
    }
    print_diff(&compared);
    ExitCode::SUCCESS
}

fn print_diff(compared: &RevisionDiff) {
    say!("From revision {} to revision {} of {}:", compared.from, compared.to, compared.crew);
    if compared.changes.sentences.is_empty() {
        say!("  nothing changed in how the crew works");
    }
    for sentence in &compared.changes.sentences {
        say!("  - {sentence}");
    }
    for agent in &compared.changes.agents {
        for field in agent.fields.iter().filter(|f| !f.hunks.is_empty()) {
            say!("");
            say!("{}'s {}:", agent.name, field.words);
            for hunk in &field.hunks {
                say!("@@ -{},{} +{},{} @@", hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines);
                for line in &hunk.lines {
                    let mark = match line.kind {
                        LineKind::Same => ' ',
                        LineKind::Removed => '-',
                        LineKind::Added => '+',
                    };
                    say!("{mark}{}", line.text);
                }
            }
        }
    }
}
