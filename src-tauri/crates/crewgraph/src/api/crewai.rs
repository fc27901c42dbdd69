//! CrewAI projects imported: the files' text made into a crew by the engine
//! ([`crewgraph_engine::import::crewai`]), and — for the window and the CLI, which
//! reach this machine's files — a project folder read into those files.
//!
//! [`import_crewai`] takes the files as the person picked them (any names: the one
//! ending in `agents.yaml` is the agents, `tasks.yaml` the tasks, a `.py` the crew's
//! code), so a browser can upload them; [`read_crewai_project`] finds them in a
//! folder laid out as `crewai create crew` lays it out (`config/` at the top, or under
//! `src/<name>/`), or takes the files named.

use std::fs;
use std::path::{Path, PathBuf};

use crewgraph_engine::import::crewai::crew_py::Process;
use crewgraph_engine::import::crewai::{self, CrewAiProject};
use crewgraph_engine::import::{ImportIssue, SourceFile};
use crewgraph_engine::load::MAX_FILE_SIZE;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{ApiError, ApiErrorCode};

/// A CrewAI project made into a crew: its file's text, and what the person should
/// know about it.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ImportedCrew {
    /// The crew's name (from the project's folder or its crew class).
    #[schema(example = "Latest ai development")]
    pub name: String,
    /// A file name to save it under.
    #[schema(example = "latest-ai-development.yaml")]
    pub file_name: String,
    /// The crew file's text (YAML), which validates with no errors.
    pub yaml: String,
    /// The crew as the editor holds it (a CrewSpec), to open it unsaved.
    #[ts(as = "crewgraph_engine::file::CrewFile")]
    #[schema(value_type = Object)]
    pub spec: Value,
    /// `sequential` (a chain of routes) or `hierarchical` (a manager and a router model).
    #[schema(example = "sequential")]
    pub process: String,
    /// What was left out or changed, each at its `file:line:col`, in words.
    #[schema(value_type = Vec<Object>)]
    pub warnings: Vec<ImportIssue>,
    /// The `{placeholders}` the run asks for, in the order they first appear.
    #[schema(example = json!(["topic", "current_year"]))]
    pub inputs: Vec<String>,
}

/// A CrewAI project's files, read from this machine.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct CrewAiFiles {
    /// The project's name (its folder's), when it was read from a folder.
    pub name: Option<String>,
    /// agents.yaml, tasks.yaml, and crew.py when there is one.
    #[schema(value_type = Vec<Object>)]
    pub files: Vec<SourceFile>,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ApiErrorCode::InvalidInput, message)
}

/// The file of `files` whose name ends with one of `endings` (the last such).
fn pick<'a>(files: &'a [SourceFile], endings: &[&str]) -> Option<&'a SourceFile> {
    files.iter().rev().find(|f| {
        let name = f.name.replace('\\', "/").to_lowercase();
        endings
            .iter()
            .any(|e| name == *e || name.ends_with(&format!("/{e}")) || name.ends_with(&format!("_{e}")) || name.ends_with(&format!("-{e}")))
    })
}

/// Makes a crew of a CrewAI project's files (`name`: the project's, if known).
/// Refused with `invalid_input` when agents.yaml or tasks.yaml is missing, or the
/// project cannot be read (every error at its `file:line:col`, one per line).
pub fn import_crewai(files: &[SourceFile], name: Option<String>) -> Result<ImportedCrew, ApiError> {
    let given = || files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ");
    let agents = pick(files, &["agents.yaml", "agents.yml"]).ok_or_else(|| {
        invalid(format!("no agents.yaml among the files ({}): a CrewAI project keeps its agents in config/agents.yaml", given()))
    })?;
    let tasks = pick(files, &["tasks.yaml", "tasks.yml"]).ok_or_else(|| {
        invalid(format!("no tasks.yaml among the files ({}): a CrewAI project keeps its tasks in config/tasks.yaml", given()))
    })?;
    let crew_py = pick(files, &["crew.py"]).or_else(|| files.iter().find(|f| f.name.ends_with(".py")));
    let project = CrewAiProject {
        name: name.filter(|n| !n.trim().is_empty()),
        agents: agents.clone(),
        tasks: tasks.clone(),
        crew_py: crew_py.cloned(),
    };
    let imported = crewai::import_crewai(&project).map_err(|failed| invalid(failed.to_string()))?;
    Ok(ImportedCrew {
        name: imported.crew_name,
        file_name: imported.file_name,
        yaml: imported.yaml,
        spec: imported.spec,
        process: match imported.process {
            Process::Sequential => "sequential".into(),
            Process::Hierarchical => "hierarchical".into(),
        },
        warnings: imported.warnings,
        inputs: imported.inputs,
    })
}

/// Reads a CrewAI project from this machine: one folder (its `config/agents.yaml`
/// and `config/tasks.yaml`, at the top or under `src/<name>/`, and the `crew.py`
/// beside `config/`), or the files themselves. Files are named as given, joined.
pub fn read_crewai_project(paths: &[PathBuf]) -> Result<CrewAiFiles, ApiError> {
    match paths {
        [] => Err(invalid("name a CrewAI project folder, or its agents.yaml and tasks.yaml")),
        [dir] if dir.is_dir() => read_folder(dir),
        files => {
            let files = files.iter().map(|path| read_file(path)).collect::<Result<Vec<_>, _>>()?;
            Ok(CrewAiFiles { name: None, files })
        }
    }
}

fn read_folder(dir: &Path) -> Result<CrewAiFiles, ApiError> {
    let has_config = |base: &Path| base.join("config").join("agents.yaml").is_file() || base.join("config").join("agents.yml").is_file();
    let mut bases = vec![dir.to_path_buf()];
    if let Ok(entries) = fs::read_dir(dir.join("src")) {
        let mut inner: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
        inner.sort();
        bases.extend(inner);
    }
    let base = bases.into_iter().find(|b| has_config(b)).ok_or_else(|| {
        invalid(format!(
            "'{}' has no config/agents.yaml (nor src/<name>/config/agents.yaml): is it a CrewAI project folder?",
            dir.display()
        ))
    })?;
    let found = |names: [&str; 2]| names.iter().map(|n| base.join(n)).find(|p| p.is_file());
    let mut files = Vec::with_capacity(3);
    for names in [["config/agents.yaml", "config/agents.yml"], ["config/tasks.yaml", "config/tasks.yml"]] {
        let path = found(names).ok_or_else(|| invalid(format!("'{}' has no {}", base.display(), names[0])))?;
        files.push(read_file(&path)?);
    }
    if let Some(crew_py) = found(["crew.py", "crew.py"]) {
        files.push(read_file(&crew_py)?);
    }
    let named = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).filter(|n| !n.is_empty() && n != "." && n != "..");
    let name = if base != dir { named(&base) } else { named(dir).or_else(|| fs::canonicalize(dir).ok().as_deref().and_then(named)) };
    Ok(CrewAiFiles { name, files })
}

/// One file's text, refused in words when it is missing, huge or not text.
fn read_file(path: &Path) -> Result<SourceFile, ApiError> {
    let shown = path.display().to_string();
    let metadata = fs::metadata(path).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound { ApiErrorCode::NotFound } else { ApiErrorCode::Io };
        ApiError::new(code, format!("cannot open '{shown}': {e}"))
    })?;
    if metadata.is_dir() {
        return Err(invalid(format!("'{shown}' is a folder; name one project folder, or its files")));
    }
    if metadata.len() > MAX_FILE_SIZE {
        return Err(invalid(format!("'{shown}' is too large to be a CrewAI config file ({} bytes)", metadata.len())));
    }
    let bytes = fs::read(path).map_err(|e| ApiError::new(ApiErrorCode::Io, format!("cannot read '{shown}': {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| invalid(format!("'{shown}' is not UTF-8 text")))?;
    Ok(SourceFile::new(shown, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_apart_by_their_names() {
        let agents = "poet:\n  role: Poet\n  goal: Rhyme\n  backstory: You rhyme.\n";
        let tasks = "poem:\n  description: A poem\n  expected_output: Four lines\n  agent: poet\n";
        let files = [SourceFile::new("my_tasks.yaml", tasks), SourceFile::new("config/agents.yaml", agents)];
        let imported = import_crewai(&files, Some("poetry".into())).unwrap();
        assert_eq!(imported.name, "Poetry");
        assert_eq!(imported.process, "sequential");
        let missing = import_crewai(&files[..1], None).unwrap_err();
        assert_eq!(missing.code, ApiErrorCode::InvalidInput);
        assert!(missing.message.starts_with("no agents.yaml among the files (my_tasks.yaml)"), "{}", missing.message);
    }
}
