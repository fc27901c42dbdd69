//! `crewgraph import crewai DIR_OR_FILES [--out FILE]`: a CrewAI project made into a
//! crew. The crew file's YAML goes to stdout, or to `--out` (written whole or not at
//! all: a temporary file beside it, renamed over it once flushed); the warnings go to
//! stderr as `FILE:LINE:COL: warning: message`, and the inputs the run asks for after
//! them. A project that cannot be imported prints each error as
//! `FILE:LINE:COL: error: message` and exits 1.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::terminal::{say, tell};
use crewgraph::api::{import_crewai, read_crewai_project};

pub fn crewai(paths: &[PathBuf], out: Option<&Path>) -> ExitCode {
    let project = match read_crewai_project(paths) {
        Ok(project) => project,
        Err(error) => return super::fail(error.message),
    };
    let imported = match import_crewai(&project.files, project.name) {
        Ok(imported) => imported,
        Err(error) => {
            for line in error.message.lines() {
                tell!("{line}");
            }
            return ExitCode::FAILURE;
        }
    };
    for warning in &imported.warnings {
        tell!("{warning}");
    }
    if !imported.inputs.is_empty() {
        tell!("the run asks for: {} (write them in its input, as \"{}: …\")", imported.inputs.join(", "), imported.inputs[0]);
    }
    match out {
        None => {
            say!("{}", imported.yaml.trim_end());
            ExitCode::SUCCESS
        }
        Some(path) => match write_whole(path, &imported.yaml) {
            Ok(()) => {
                let warnings = imported.warnings.len();
                let plural = if warnings == 1 { "" } else { "s" };
                tell!("wrote {} (crew '{}', {} process, {warnings} warning{plural})", path.display(), imported.name, imported.process);
                ExitCode::SUCCESS
            }
            Err(error) => super::fail(format!("cannot write '{}': {error}", path.display())),
        },
    }
}

/// Writes `text` to `path` through a temporary file in the same folder, renamed over
/// it only once everything is written and flushed: never half a crew file.
fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
    if path.is_dir() {
        return Err(std::io::Error::other("it is a folder"));
    }
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new().prefix(".crewgraph-").suffix(".tmp").tempfile_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}
