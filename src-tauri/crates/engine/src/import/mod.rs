//! Crews made from other tools' projects: their files' text in, a Crewgraph crew
//! file's text out, with every part that could not be carried over said where it
//! is. Pure: the hosts read the files (a folder for the CLI, the files a person
//! picks in the window or a browser) and hand their text here.
//!
//! - [`SourceFile`]: one file's name (as the person knows it) and text;
//! - [`crewai`]: a CrewAI project (`config/agents.yaml`, `config/tasks.yaml`, and
//!   `crew.py` when there is one) becomes a crew ([`crewai::import_crewai`]);
//! - [`ImportIssue`]: a warning (something left out or changed) or an error (the
//!   project cannot be read), at its `file:line:col`; [`ImportFailed`] holds the
//!   errors of a project that could not be imported.
//!
//! ```
//! use crewgraph_engine::import::{crewai::{import_crewai, CrewAiProject}, SourceFile};
//!
//! let project = CrewAiProject {
//!     name: Some("poem".into()),
//!     agents: SourceFile::new("agents.yaml", "poet:\n  role: Poet\n  goal: Write about {topic}\n  backstory: You rhyme.\n"),
//!     tasks: SourceFile::new("tasks.yaml", "poem_task:\n  description: A poem on {topic}\n  expected_output: Four lines\n  agent: poet\n"),
//!     crew_py: None,
//! };
//! let imported = import_crewai(&project).unwrap();
//! assert!(imported.yaml.contains("entry_point: poet"));
//! assert_eq!(imported.inputs, ["topic"]);
//! assert!(crewgraph_engine::load_str(&imported.file_name, &imported.yaml).is_valid());
//! ```

pub mod crewai;

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::diagnostic::{Location, Severity};

/// One file of a project: its name as the person knows it (used in every
/// location) and its whole text.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, TS)]
#[ts(export)]
pub struct SourceFile {
    /// The file's name or path, as it is shown in messages (`config/agents.yaml`).
    pub name: String,
    /// Its whole text.
    pub text: String,
}

impl SourceFile {
    /// A file named `name` holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile { name: name.into(), text: text.into() }
    }
}

/// Something to say about an imported project, where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ImportIssue {
    /// A warning (left out or changed: the crew was made) or an error (no crew).
    pub severity: Severity,
    /// Where in which file (lines and columns from 1).
    pub location: Location,
    /// What happened, in a person's words.
    pub message: String,
}

impl ImportIssue {
    /// An issue about `message` at `location`.
    pub fn new(severity: Severity, location: Location, message: impl Into<String>) -> Self {
        ImportIssue { severity, location, message: message.into() }
    }
}

impl fmt::Display for ImportIssue {
    /// `FILE:LINE:COL: warning: message` (or `error:`), as compilers say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}: {kind}: {}", self.location, self.message)
    }
}

/// A project that could not be imported: every error found, in file order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct ImportFailed {
    /// The errors (never empty), each at its place.
    pub errors: Vec<ImportIssue>,
}
