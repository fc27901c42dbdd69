//! A crew's stored revisions, side by side: the history of a crew (each revision
//! with what changed since the one before, in words, and the runs made of it), two
//! revisions compared (the engine's [`diff`] of their specs, and their graphs as one
//! [`overlay`]), and one revision's spec, for the editor to restore.
//!
//! Every save keeps the crew's text as a revision (`crew_revisions`, by its files'
//! fingerprint), and so does every run, before it starts ([`Api::keep_run_revision`]):
//! the store then records on the run the revision whose fingerprint is the run's.
//! A revision's text is its crew file; for a crew directory, or a crew that ran with
//! agents added while the app runs, its files one after the other, each under a
//! `# <name>` line ([`revision_text`], read back by [`revision_files`]).
//!
//! ```no_run
//! # async fn example(api: crewgraph::api::Api) -> Result<(), crewgraph::api::ApiError> {
//! let path = std::path::Path::new("crews/desk.yaml");
//! for revision in api.list_revisions(path).await? {
//!     println!("{} {}", revision.revision, revision.changes.join("; "));
//! }
//! let compared = api.diff_revisions(path, 1, 2, None).await?;
//! println!("{}", compared.changes.sentences.join("\n"));
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crewgraph_engine::file::diff::{diff, CrewDiff};
use crewgraph_engine::file::spec;
use crewgraph_engine::file::AgentFile;
use crewgraph_engine::graph::overlay::{overlay, Overlay};
use crewgraph_engine::graph::{CrewGraph, GraphView};
use crewgraph_engine::load::{load_path, load_spec_value, parse_yaml, RuntimeAgentText};
use crewgraph_engine::run::{RunRecord, RunSummary, Timestamp};
use crewgraph_store::{CrewRevision, NewCrewRevision};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::crews::crew_key;
use super::runs::fingerprint;
use super::{Api, ApiError, ApiErrorCode};

/// One revision of a crew, as its history lists it.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct RevisionView {
    /// 1, 2, 3 … in the order the versions were first kept.
    pub revision: u32,
    /// The crew's name in this revision.
    pub name: String,
    /// When it was first kept.
    pub saved_at: Timestamp,
    /// The revision it is compared with (the one before it); None for the first.
    pub previous: Option<u32>,
    /// What changed since `previous`, in words; empty when only how the file is
    /// written changed (or for the first revision).
    pub changes: Vec<String>,
    /// The runs made of this revision, newest first.
    pub runs: Vec<RunSummary>,
    /// The crew's files on disk are this revision now.
    pub current: bool,
}

/// Two revisions of one crew compared.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct RevisionDiff {
    pub crew: String,
    pub from: u32,
    pub to: u32,
    /// What changed from `from` to `to`, item by item and in words.
    pub changes: CrewDiff,
    /// Both revisions drawn as one graph, what changed marked on it.
    pub overlay: Overlay,
}

/// One revision's crew, as the editor holds a crew (to restore it).
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct RevisionSpec {
    pub crew: String,
    pub revision: u32,
    pub saved_at: Timestamp,
    #[ts(as = "crewgraph_engine::file::CrewFile")]
    pub spec: Value,
}

/// Reads and keeps crew revisions.
#[async_trait::async_trait]
pub trait CrewStore: Send + Sync {
    /// Keeps a version of a crew; its revision number (an existing one for a
    /// fingerprint the crew already had).
    async fn save_crew_revision(&self, revision: &NewCrewRevision) -> Result<u32, crewgraph_engine::run::StoreError>;
    /// The revisions of the crew at `path` (as `crew_key` names it), oldest first.
    async fn crew_revisions(&self, path: &str) -> Result<Vec<CrewRevision>, crewgraph_engine::run::StoreError>;
}

#[async_trait::async_trait]
impl CrewStore for crewgraph_store::SqliteStore {
    async fn save_crew_revision(&self, revision: &NewCrewRevision) -> Result<u32, crewgraph_engine::run::StoreError> {
        crewgraph_store::SqliteStore::save_crew_revision(self, revision).await
    }

    async fn crew_revisions(&self, path: &str) -> Result<Vec<CrewRevision>, crewgraph_engine::run::StoreError> {
        crewgraph_store::SqliteStore::crew_revisions(self, path).await
    }
}

#[async_trait::async_trait]
impl CrewStore for crewgraph_store_postgres::PostgresStore {
    async fn save_crew_revision(&self, revision: &NewCrewRevision) -> Result<u32, crewgraph_engine::run::StoreError> {
        crewgraph_store_postgres::PostgresStore::save_crew_revision(self, revision).await
    }

    async fn crew_revisions(&self, path: &str) -> Result<Vec<CrewRevision>, crewgraph_engine::run::StoreError> {
        crewgraph_store_postgres::PostgresStore::crew_revisions(self, path).await
    }
}

/// The header of the line before each file in a revision of several files.
const HEADER: &str = "# ";
/// How the text of an agent added while the app runs is named in a revision.
const RUNTIME: &str = "runtime agent ";

/// A revision's text from a crew's files as (name, text) pairs: a lone crew file as
/// it is, several files each under a `# <name>` line (see the module overview).
pub(super) fn revision_text(files: &[(String, String)]) -> String {
    match files {
        [(_, only)] => only.clone(),
        many => many.iter().map(|(name, text)| format!("{HEADER}{name}\n{text}")).collect::<Vec<_>>().join("\n"),
    }
}

/// The files of a revision's text: several when it starts with `# crew.yaml`
/// ([`revision_text`] puts the crew file first), else one crew file.
pub(super) fn revision_files(text: &str) -> Vec<(String, String)> {
    let is_header = |line: &str| {
        line.strip_prefix(HEADER).is_some_and(|name| {
            matches!(name, "crew.yaml" | "crew.yml")
                || (name.starts_with("agents/") && (name.ends_with(".yaml") || name.ends_with(".yml")))
                || name.starts_with(RUNTIME)
        })
    };
    let first = text.lines().next().unwrap_or_default();
    if !matches!(first, "# crew.yaml" | "# crew.yml") {
        return vec![("crew.yaml".to_owned(), text.to_owned())];
    }
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        match (is_header(line), files.last_mut()) {
            (true, _) => files.push((line[HEADER.len()..].to_owned(), String::new())),
            (false, Some((_, body))) => {
                body.push_str(line);
                body.push('\n');
            }
            (false, None) => {}
        }
    }
    files
}

/// The spec a revision's text stands for, its runtime agents after the crew's own.
fn revision_spec(text: &str) -> Result<Value, ApiError> {
    let files = revision_files(text);
    let (runtime, own): (Vec<_>, Vec<_>) = files.into_iter().partition(|(name, _)| name.starts_with(RUNTIME));
    let unreadable = |e: spec::SpecError| ApiError::new(ApiErrorCode::InvalidInput, format!("this revision cannot be read as a crew: {e}"));
    let mut spec = spec::from_texts(&own).map_err(unreadable)?;
    if let Some(agents) = spec.get_mut("agents").and_then(Value::as_array_mut) {
        for (name, text) in runtime {
            if let (Some(agent), _) = parse_yaml::<AgentFile>(&name, &text) {
                agents.push(serde_json::to_value(agent).unwrap_or(Value::Null));
            }
        }
    }
    Ok(spec)
}

/// The graph the window draws of a spec (empty when it is not a crew at all).
fn graph_of(spec: &Value) -> GraphView {
    let crew = load_spec_value("revision", spec).ok().and_then(|loaded| loaded.crew);
    crew.map(|crew| CrewGraph::build(&crew).view(&crew)).unwrap_or_default()
}

impl Api {
    fn crew_store(&self) -> Result<&dyn CrewStore, ApiError> {
        self.crew_store.as_deref().ok_or_else(|| ApiError::new(ApiErrorCode::Store, "no store of crew revisions is open"))
    }

    /// The revisions of the crew at `path`, oldest first; `not_found` for a crew that
    /// neither exists nor has revisions.
    async fn revisions_of(&self, path: &Path) -> Result<Vec<CrewRevision>, ApiError> {
        let revisions = self.crew_store()?.crew_revisions(&crew_key(path)).await?;
        if revisions.is_empty() && !path.exists() {
            return Err(ApiError::new(
                ApiErrorCode::NotFound,
                format!("there is no crew '{}', and no revision of it is kept", self.shown(path)),
            ));
        }
        Ok(revisions)
    }

    /// How answers name the crew at `path`.
    fn shown(&self, path: &Path) -> String {
        self.crew_name(&path.display().to_string())
    }

    /// The history of the crew at `path`, newest revision first: each with what
    /// changed since the one before it, its runs, and whether it is on disk now.
    pub async fn list_revisions(&self, path: &Path) -> Result<Vec<RevisionView>, ApiError> {
        let revisions = self.revisions_of(path).await?;
        let key = crew_key(path);
        let mut runs: BTreeMap<u32, Vec<RunSummary>> = BTreeMap::new();
        if let Some(store) = &self.store {
            for mut run in store.list_runs().await? {
                let Some(revision) = run.crew_revision.filter(|_| run.crew_path.as_deref() == Some(key.as_str())) else { continue };
                run.crew_path = Some(self.shown(path));
                runs.entry(revision).or_default().push(run);
            }
        }
        let on_disk = path.exists().then(|| fingerprint(&load_path(path)));
        let specs: Vec<Option<Value>> = revisions.iter().map(|r| revision_spec(&r.yaml).ok()).collect();
        let mut views = Vec::with_capacity(revisions.len());
        for (index, revision) in revisions.iter().enumerate() {
            let previous = index.checked_sub(1).map(|i| &revisions[i]);
            let changes = match (previous.map(|_| &specs[index - 1]), &specs[index]) {
                (None, _) => Vec::new(),
                (Some(Some(before)), Some(after)) => diff(before, after).sentences,
                (Some(_), _) => vec!["this revision or the one before it cannot be read as a crew".to_owned()],
            };
            views.push(RevisionView {
                revision: revision.revision,
                name: revision.name.clone(),
                saved_at: revision.saved_at,
                previous: previous.map(|p| p.revision),
                changes,
                runs: runs.remove(&revision.revision).unwrap_or_default(),
                current: on_disk.as_deref() == Some(revision.fingerprint.as_str()),
            });
        }
        views.reverse();
        Ok(views)
    }

    /// Revision `number` of the crew at `path`, or `not_found` saying which there are.
    async fn revision(&self, path: &Path, number: u32) -> Result<CrewRevision, ApiError> {
        let revisions = self.revisions_of(path).await?;
        let known = match (revisions.first(), revisions.last()) {
            (Some(first), Some(last)) if first.revision != last.revision => {
                format!("its revisions are {} to {}", first.revision, last.revision)
            }
            (Some(only), _) => format!("its only revision is {}", only.revision),
            _ => "no revision of it is kept yet: each save keeps one".to_owned(),
        };
        revisions.into_iter().find(|r| r.revision == number).ok_or_else(|| {
            ApiError::new(ApiErrorCode::NotFound, format!("the crew '{}' has no revision {number}: {known}", self.shown(path)))
        })
    }

    /// Revision `number` of the crew at `path` as the editor holds a crew.
    pub async fn revision_spec(&self, path: &Path, number: u32) -> Result<RevisionSpec, ApiError> {
        let revision = self.revision(path, number).await?;
        Ok(RevisionSpec { crew: self.shown(path), revision: number, saved_at: revision.saved_at, spec: revision_spec(&revision.yaml)? })
    }

    /// Revisions `from` and `to` of the crew at `path` compared. `to_crew`, when
    /// given, is the crew `to` belongs to: another crew than `path` is refused (two
    /// different crews have no revisions in common to compare).
    pub async fn diff_revisions(&self, path: &Path, from: u32, to: u32, to_crew: Option<&Path>) -> Result<RevisionDiff, ApiError> {
        if let Some(other) = to_crew.filter(|other| crew_key(other) != crew_key(path)) {
            return Err(ApiError::new(
                ApiErrorCode::InvalidInput,
                format!(
                    "revision {from} is of the crew '{}' and revision {to} of another crew, '{}': only two revisions of the same crew can be compared",
                    self.shown(path),
                    self.shown(other)
                ),
            ));
        }
        let (older, newer) = (self.revision(path, from).await?, self.revision(path, to).await?);
        let (before, after) = (revision_spec(&older.yaml)?, revision_spec(&newer.yaml)?);
        let changes = diff(&before, &after);
        let overlay = overlay(&graph_of(&before), &graph_of(&after), &changes);
        Ok(RevisionDiff { crew: self.shown(path), from, to, changes, overlay })
    }

    /// Keeps the crew a run is about to run as a revision (the store then records it
    /// on the run: the revision whose fingerprint is the run's). `files` are the crew's
    /// files as loaded; `runtime` its agents added while the app runs. Failing to keep
    /// it does not stop the run: the run is only not linked to a revision.
    pub(super) async fn keep_run_revision(&self, path: &Path, name: &str, files: &[PathBuf], runtime: &[RuntimeAgentText], print: &str) {
        let Some(store) = &self.crew_store else { return };
        let base = if path.is_dir() { path.to_path_buf() } else { PathBuf::new() };
        let mut texts: Vec<(String, String)> = files
            .iter()
            .map(|file| {
                let name = match file.strip_prefix(&base) {
                    Ok(inside) if path.is_dir() => inside.display().to_string(),
                    _ => "crew.yaml".to_owned(),
                };
                (name, std::fs::read_to_string(file).unwrap_or_default())
            })
            .collect();
        texts.extend(runtime.iter().map(|agent| (format!("{RUNTIME}{}", agent.name), agent.yaml.clone())));
        if texts.len() == 1 {
            texts[0].0 = String::new();
        }
        let revision = NewCrewRevision {
            path: crew_key(path),
            name: name.to_owned(),
            yaml: revision_text(&texts),
            fingerprint: print.to_owned(),
            saved_at: self.clock.now(),
        };
        if let Err(error) = store.save_crew_revision(&revision).await {
            tracing::warn!(%error, crew = %revision.path, "the revision of a run's crew could not be kept");
        }
    }

    /// The revision of its crew a stored run ran (None when none is kept).
    pub(super) async fn revision_ran(&self, record: &RunRecord) -> Option<u32> {
        let (store, path) = (self.crew_store.as_ref()?, record.crew_path.as_ref()?);
        let revisions = store.crew_revisions(path).await.ok()?;
        revisions.iter().find(|r| r.fingerprint == record.crew_fingerprint).map(|r| r.revision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_of_several_files_reads_back_as_its_files() {
        let files = vec![
            ("crew.yaml".to_owned(), "name: D\nagents:\n- a\n".to_owned()),
            ("agents/a.yaml".to_owned(), "id: a\nsystem_prompt: |\n  # not a header\n  Hi.\n".to_owned()),
            (format!("{RUNTIME}'lore'"), "id: lore\n".to_owned()),
        ];
        let read = revision_files(&revision_text(&files));
        let names: Vec<&str> = read.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["crew.yaml", "agents/a.yaml", "runtime agent 'lore'"]);
        assert!(read[1].1.starts_with(&files[1].1), "{:?}", read[1].1);
        let spec = revision_spec(&revision_text(&files)).unwrap();
        let ids: Vec<&str> = spec["agents"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["a", "lore"], "the runtime agent after the crew's own");
    }

    #[test]
    fn a_lone_crew_file_starting_with_a_comment_is_one_file() {
        let text = "# My crew\nname: Solo\nagents:\n- id: a\n";
        assert_eq!(revision_files(text), [("crew.yaml".to_owned(), text.to_owned())]);
        assert_eq!(revision_spec(text).unwrap()["name"], "Solo");
    }
}
