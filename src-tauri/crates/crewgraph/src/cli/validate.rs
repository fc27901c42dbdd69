//! `crewgraph validate FILE...`: errors on stdout, one per line, as
//! `FILE:LINE:COL: message`; warnings and a summary per file on stderr; exit 1 when
//! any file has an error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::terminal::{safe, tell};
use crewgraph_engine::diagnostic::{Diagnostic, Location};
use crewgraph_engine::load::load_path;

pub fn run(files: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in files {
        let loaded = load_path(path);
        let shown = path.display().to_string();
        for diagnostic in loaded.errors() {
            let _ = writeln!(out, "{}", safe(&format!("{}: {}", location(diagnostic, &shown), diagnostic.message)));
        }
        for diagnostic in loaded.warnings() {
            tell!("{}: warning: {}", location(diagnostic, &shown), diagnostic.message);
        }
        let errors = loaded.errors().count();
        let warnings = loaded.warnings().count();
        failed |= errors > 0;
        tell!("{shown}: {}", summary(errors, warnings));
    }
    let _ = out.flush();
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `FILE:LINE:COL`; problems without a position are placed at the start of the file.
fn location(diagnostic: &Diagnostic, file: &str) -> Location {
    diagnostic.location.clone().unwrap_or(Location { file: file.to_owned(), line: 1, column: 1 })
}

fn summary(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => "ok".into(),
        (0, w) => format!("ok ({})", plural(w, "warning")),
        (e, 0) => plural(e, "error"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}
