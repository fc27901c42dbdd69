//! Editing crews: open a crew as an editor holds it ([`EditableCrew`]: its
//! `CrewSpec` JSON, the engine's verdict, where its nodes were placed), check an
//! edited spec, save it, export it as YAML, and the recent crews.
//!
//! An edit is checked by the engine's own loader on the YAML tree the spec stands
//! for ([`load_spec_value`]): there is no second validator. Saving writes that tree
//! as text ([`spec::to_yaml`]), each file atomically (a temporary file renamed over the old one),
//! so a failed save never leaves a half-written crew; a crew directory gets its
//! `agents/<id>.yaml` files first and `crew.yaml`, the index, last. A crew changed on
//! disk since it was opened is not overwritten unless the person says so. Each save
//! is a revision in the store, and the node positions are kept there too (crew files
//! stay free of drawing details).

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crewgraph_engine::crew::CrewLayout;
use crewgraph_engine::file::{spec, AgentEntry, CrewFile};
use crewgraph_engine::load::{crew_folder, load_path, load_spec, load_spec_value, parse_yaml, start_servers_in, Loaded, MAX_FILE_SIZE};
use crewgraph_engine::run::prompt::signal_instructions;
use crewgraph_engine::signal::name::{is_bracket_name, is_pattern_name};
use crewgraph_engine::validate::is_valid_agent_id;
use crewgraph_store::NewCrewRevision;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;
use utoipa::ToSchema;

use super::crews::{crew_key, document};
use super::revisions::revision_text;
use super::runs::fingerprint;
use super::{Api, ApiError, ApiErrorCode, CrewDocument};

/// How many crews "Open recent" remembers.
pub const RECENT_CREWS: usize = 10;

/// A crew opened for editing.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct EditableCrew {
    /// The crew file or folder.
    pub path: String,
    pub layout: CrewLayout,
    /// The crew as the editor holds it; None when the file could not be read as a crew.
    #[ts(as = "Option<CrewFile>")]
    pub spec: Option<Value>,
    /// The file's text when it could not be read as a crew, to show what is wrong.
    pub text: Option<String>,
    pub document: CrewDocument,
    /// Where the person placed the nodes (node id → position); empty: lay it out.
    pub positions: BTreeMap<String, Position>,
    /// The files on disk as they were opened: saving checks they did not change since.
    pub disk: String,
}

/// A node's place on the canvas.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, TS, ToSchema)]
#[ts(export)]
pub struct Position {
    pub x: f64,
    pub y: f64,
}

/// An edited crew to check.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[ts(export)]
pub struct CheckCrew {
    /// The crew's file, for the names in problems; None for a crew never saved.
    #[ts(optional)]
    pub path: Option<String>,
    #[ts(as = "CrewFile")]
    #[schema(value_type = Object)]
    pub spec: Value,
}

/// An edited crew to save.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[ts(export)]
pub struct SaveCrew {
    /// Where to save: a `.yaml` file, or the folder of a crew directory.
    pub path: String,
    #[schema(value_type = String, example = "file")]
    pub layout: CrewLayout,
    #[ts(as = "CrewFile")]
    #[schema(value_type = Object)]
    pub spec: Value,
    #[serde(default)]
    pub positions: BTreeMap<String, Position>,
    /// [`EditableCrew::disk`] from when it was opened (or last saved); None for a
    /// new file, which must not exist yet.
    #[ts(optional)]
    pub disk: Option<String>,
    /// Save even though the files changed on disk (or exist, for a new file).
    #[serde(default)]
    pub overwrite: bool,
}

/// What a save did.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct SavedCrew {
    pub path: String,
    pub document: CrewDocument,
    /// The files as now on disk (for the next save's check).
    pub disk: String,
    /// The crew's revision in the store (None without a store).
    pub revision: Option<u32>,
}

/// A crew opened lately.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct RecentCrew {
    pub path: String,
    /// False when the file or folder is gone.
    pub exists: bool,
}

impl Api {
    /// Opens a crew for editing. A broken crew opens too, with its problems; a file
    /// that is not a crew at all comes with its text.
    pub async fn edit_crew(&self, path: &Path) -> EditableCrew {
        self.refresh_app_servers().await;
        let (loaded, spec) = load_spec(path);
        let loaded = self.known_tools(loaded);
        let layout = loaded.crew.as_ref().map_or_else(|| guess_layout(path), |c| c.layout);
        let text = spec.is_none().then(|| read_crew_text(path)).flatten();
        let positions = self.positions(path).await;
        self.remember(path).await;
        EditableCrew {
            path: path.display().to_string(),
            layout,
            spec,
            text,
            document: document(path, &loaded),
            positions,
            disk: fingerprint(&loaded),
        }
    }

    /// The engine's verdict on an edited crew: its graph and every problem.
    pub fn check_crew(&self, check: &CheckCrew) -> Result<CrewDocument, ApiError> {
        let path = check.path.as_deref().map_or_else(|| PathBuf::from("untitled.yaml"), PathBuf::from);
        let mut loaded = load_spec_value(&path.display().to_string(), &check.spec).map_err(invalid)?;
        if let (Some(crew), Some(_)) = (loaded.crew.as_mut(), check.path.as_ref()) {
            start_servers_in(&mut crew.tool_servers, &crew_folder(&path));
        }
        let loaded = self.known_tools(loaded);
        Ok(document(&path, &loaded))
    }

    /// What the engine appends to `agent`'s prompt about its signals in the edited
    /// crew (None: nothing — no rules, or a strategy that keeps agents blind to
    /// routing), so the agent form can show the whole prompt the model will get.
    pub fn agent_instructions(&self, spec: &Value, agent: &str) -> Result<Option<String>, ApiError> {
        let loaded = load_spec_value("crew", spec).map_err(invalid)?;
        Ok(loaded.crew.as_ref().and_then(|crew| signal_instructions(crew, agent)))
    }

    /// The edited crew as the YAML of one self-contained file (Export).
    pub fn crew_yaml(&self, spec: &Value) -> Result<String, ApiError> {
        spec::to_yaml(spec).map_err(invalid)
    }

    /// Is `name` a signal name? None when it is, else what is wrong, in plain words.
    pub fn check_signal_name(&self, name: &str) -> Option<String> {
        let name = name.trim();
        if name.is_empty() {
            return Some("A signal needs a name, for example [DONE].".into());
        }
        if is_bracket_name(name) || (is_pattern_name(name) && !name.contains(['[', ']'])) {
            return None;
        }
        Some(format!(
            "invalid signal format '{name}': write it in square brackets, with letters, digits, spaces, _ or - inside, for example [READY]"
        ))
    }

    /// Saves an edited crew (see the module overview) and returns the engine's verdict
    /// on what was written. A crew with errors is saved too: work is never lost.
    pub async fn save_crew(&self, save: &SaveCrew) -> Result<SavedCrew, ApiError> {
        let path = PathBuf::from(&save.path);
        let files = match save.layout {
            CrewLayout::File => vec![(String::new(), spec::to_yaml(&save.spec).map_err(invalid)?)],
            CrewLayout::Directory => spec::to_directory(&save.spec).map_err(invalid)?,
        };
        self.check_disk(&path, save)?;
        match save.layout {
            CrewLayout::File => write_atomically(&path, &files[0].1)?,
            CrewLayout::Directory => write_directory(&path, &files)?,
        }
        let loaded = load_path(&path);
        let disk = fingerprint(&loaded);
        let revision = self.save_revision(&path, &loaded, &files, &disk).await?;
        self.set_positions(&path, &save.positions).await;
        self.remember(&path).await;
        let loaded = self.known_tools(loaded);
        Ok(SavedCrew { path: save.path.clone(), document: document(&path, &loaded), disk, revision })
    }

    /// Writes the edited crew as one YAML file at `path` (Export YAML); the editor's
    /// own file is left as it is.
    pub fn export_crew(&self, path: &Path, spec: &Value) -> Result<(), ApiError> {
        write_atomically(path, &spec::to_yaml(spec).map_err(invalid)?)
    }

    /// The files of the crew at `path` as they are now ([`EditableCrew::disk`]), to
    /// notice a crew changed by another program while it is open.
    pub fn crew_disk(&self, path: &Path) -> String {
        fingerprint(&load_path(path))
    }

    /// The crews opened or saved lately, newest first.
    pub async fn recent_crews(&self) -> Vec<RecentCrew> {
        self.recent_paths().await.into_iter().map(|path| RecentCrew { exists: Path::new(&path).exists(), path }).collect()
    }

    fn check_disk(&self, path: &Path, save: &SaveCrew) -> Result<(), ApiError> {
        if save.overwrite || !path.exists() {
            return Ok(());
        }
        match &save.disk {
            None => Err(ApiError::new(
                ApiErrorCode::Conflict,
                format!("'{}' already exists: choose another name, or replace it", path.display()),
            )),
            Some(opened) if *opened != self.crew_disk(path) => Err(ApiError::new(
                ApiErrorCode::Conflict,
                format!(
                    "'{}' was changed by another program since it was opened: reload it to see those changes, or save again to replace them",
                    path.display()
                ),
            )),
            Some(_) => Ok(()),
        }
    }

    async fn save_revision(&self, path: &Path, loaded: &Loaded, files: &[(String, String)], disk: &str) -> Result<Option<u32>, ApiError> {
        let Some(store) = &self.crew_store else { return Ok(None) };
        let yaml = revision_text(files);
        let name = loaded.crew.as_ref().map(|c| c.name.clone()).unwrap_or_default();
        let revision = NewCrewRevision { path: crew_key(path), name, yaml, fingerprint: disk.to_owned(), saved_at: self.clock.now() };
        store
            .save_crew_revision(&revision)
            .await
            .map(Some)
            .map_err(|e| ApiError::new(ApiErrorCode::Store, format!("the crew was saved, but its revision could not be kept: {e}")))
    }

    async fn positions(&self, path: &Path) -> BTreeMap<String, Position> {
        let Some(settings) = &self.settings else { return BTreeMap::new() };
        let stored = settings.setting(&positions_key(path)).await.ok().flatten();
        stored.and_then(|value| serde_json::from_value(value).ok()).unwrap_or_default()
    }

    async fn set_positions(&self, path: &Path, positions: &BTreeMap<String, Position>) {
        let Some(settings) = &self.settings else { return };
        if let Ok(value) = serde_json::to_value(positions) {
            // Positions are a convenience: failing to keep them does not fail the save.
            let _ = settings.set_setting(&positions_key(path), &value).await;
        }
    }

    async fn recent_paths(&self) -> Vec<String> {
        let Some(settings) = &self.settings else { return Vec::new() };
        let stored = settings.setting(RECENT_KEY).await.ok().flatten();
        stored.and_then(|value| serde_json::from_value(value).ok()).unwrap_or_default()
    }

    async fn remember(&self, path: &Path) {
        let Some(settings) = &self.settings else { return };
        let path = crew_key(path);
        let mut recent = self.recent_paths().await;
        recent.retain(|p| *p != path);
        recent.insert(0, path);
        recent.truncate(RECENT_CREWS);
        let _ = settings.set_setting(RECENT_KEY, &Value::from(recent)).await;
    }
}

const RECENT_KEY: &str = "recent_crews";

fn positions_key(path: &Path) -> String {
    format!("positions:{}", crew_key(path))
}

fn invalid(error: spec::SpecError) -> ApiError {
    ApiError::new(ApiErrorCode::InvalidInput, error.to_string())
}

fn guess_layout(path: &Path) -> CrewLayout {
    if path.is_dir() {
        CrewLayout::Directory
    } else {
        CrewLayout::File
    }
}

/// The text of a crew file that could not be read as a crew (None for binary or huge files).
fn read_crew_text(path: &Path) -> Option<String> {
    let file = if path.is_dir() { path.join("crew.yaml") } else { path.to_path_buf() };
    let size = fs::metadata(&file).ok()?.len();
    (size <= MAX_FILE_SIZE).then(|| fs::read_to_string(&file).ok()).flatten()
}

/// Writes `text` to `path` through a temporary file in the same folder, renamed over
/// the old file only once everything is written and flushed to disk.
pub(super) fn write_atomically(path: &Path, text: &str) -> Result<(), ApiError> {
    let failed = |e: std::io::Error| ApiError::new(ApiErrorCode::Io, format!("cannot save '{}': {e}", path.display()));
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(ApiError::new(ApiErrorCode::InvalidInput, format!("cannot save over the folder '{}'", path.display())));
    }
    let mut file = tempfile::Builder::new().prefix(".crewgraph-").suffix(".tmp").tempfile_in(dir).map_err(failed)?;
    file.write_all(text.as_bytes()).map_err(failed)?;
    file.as_file().sync_all().map_err(failed)?;
    file.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

/// Writes a crew directory: every agent file, then `crew.yaml`; agent files of
/// agents that were removed (listed by the old `crew.yaml`, gone now) are deleted
/// once the new `crew.yaml` no longer names them.
fn write_directory(dir: &Path, files: &[(String, String)]) -> Result<(), ApiError> {
    if dir.is_file() {
        return Err(ApiError::new(ApiErrorCode::InvalidInput, format!("'{}' is a file: a crew directory needs a folder", dir.display())));
    }
    let io = |e: std::io::Error| ApiError::new(ApiErrorCode::Io, format!("cannot save '{}': {e}", dir.display()));
    let before = listed_agents(dir);
    fs::create_dir_all(dir.join("agents")).map_err(io)?;
    for (name, text) in files.iter().filter(|(name, _)| name != "crew.yaml") {
        write_atomically(&dir.join(name), text)?;
    }
    if let Some((_, crew)) = files.iter().find(|(name, _)| name == "crew.yaml") {
        write_atomically(&dir.join("crew.yaml"), crew)?;
    }
    for id in before {
        let kept = files.iter().any(|(name, _)| *name == format!("agents/{id}.yaml"));
        let file = dir.join("agents").join(format!("{id}.yaml"));
        if !kept && file.is_file() {
            fs::remove_file(&file).map_err(io)?;
        }
    }
    Ok(())
}

/// The agent ids an existing crew directory lists (only plain, file-safe ids).
fn listed_agents(dir: &Path) -> Vec<String> {
    let Ok(text) = fs::read_to_string(dir.join("crew.yaml")) else { return Vec::new() };
    let Some(file) = parse_yaml::<CrewFile>("crew.yaml", &text).0 else { return Vec::new() };
    file.agents
        .iter()
        .filter_map(|entry| match &**entry {
            AgentEntry::Reference(id) => Some(id.clone()),
            AgentEntry::Inline(_) => None,
        })
        .filter(|id| is_valid_agent_id(id) && !id.is_empty())
        .collect()
}
