//! Run recordings: a run's every event in one JSON file, to keep, send to someone,
//! and replay on the graph elsewhere (runs history → Export recording / Import).
//!
//! ```json
//! {"format": "crewgraph-run-recording", "version": 1,
//!  "run": {RunSummary}, "crew": "crews/exam.yaml", "events": [RunEvent, …]}
//! ```
//!
//! Reading one checks it all before anything is shown, and says what is wrong in
//! plain words: a file cut off while it was written or copied (truncated), a file
//! of a newer Crewgraph (its `version`), a file that is no recording at all, events
//! that do not belong together (another run's, a gap in `seq`).

use std::path::Path;

use crewgraph_engine::run::{RunEvent, RunSummary};
use crewgraph_engine::RunId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::editor::write_atomically;
use super::{Api, ApiError, ApiErrorCode};

/// What a recording says it is.
pub const RECORDING_FORMAT: &str = "crewgraph-run-recording";
/// The recording layout this Crewgraph writes and reads.
pub const RECORDING_VERSION: u32 = 1;

/// A run and all its events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Recording {
    /// Always [`RECORDING_FORMAT`].
    pub format: String,
    /// [`RECORDING_VERSION`] when written.
    pub version: u32,
    pub run: RunSummary,
    /// The crew file or folder it ran, as it was recorded (it may not exist here).
    pub crew: Option<String>,
    pub events: Vec<RunEvent>,
}

impl Api {
    /// Run `id` as a recording.
    pub async fn run_recording(&self, id: &RunId) -> Result<Recording, ApiError> {
        let (run, crew) = self.run_and_crew(id).await?;
        let crew = crew.map(|p| p.display().to_string());
        let events = self.run_events(id, None).await?;
        Ok(Recording { format: RECORDING_FORMAT.into(), version: RECORDING_VERSION, run, crew, events })
    }

    /// Writes run `id`'s recording to `path` (whole or not at all).
    pub async fn export_run(&self, id: &RunId, path: &Path) -> Result<(), ApiError> {
        let recording = self.run_recording(id).await?;
        let text = serde_json::to_string_pretty(&recording)
            .map_err(|e| ApiError::new(ApiErrorCode::Io, format!("the recording does not encode as JSON: {e}")))?;
        write_atomically(path, &text)
    }

    /// Reads the recording in the file at `path`.
    pub fn import_recording(&self, path: &Path) -> Result<Recording, ApiError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, format!("cannot read the recording '{}': {e}", path.display())))?;
        read_recording(&path.display().to_string(), &text)
    }
}

/// The recording in `text` (from the file `name`), checked whole.
pub fn read_recording(name: &str, text: &str) -> Result<Recording, ApiError> {
    let invalid = |why: String| ApiError::new(ApiErrorCode::InvalidInput, format!("'{name}' {why}"));
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            invalid(format!(
                "ends early (line {}, column {}): the recording is truncated — it was cut off while it was written or copied",
                e.line(),
                e.column()
            ))
        } else {
            invalid(format!("is not a run recording: it is not valid JSON at line {}, column {} ({e})", e.line(), e.column()))
        }
    })?;
    if value.get("format").and_then(Value::as_str) != Some(RECORDING_FORMAT) {
        return Err(invalid("is not a Crewgraph run recording (it has no \"format\": \"crewgraph-run-recording\")".into()));
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(version) if version == u64::from(RECORDING_VERSION) => {}
        Some(version) if version > u64::from(RECORDING_VERSION) => {
            return Err(invalid(format!(
                "was made by a newer Crewgraph (recording version {version}; this one reads version {RECORDING_VERSION}): update Crewgraph to replay it"
            )))
        }
        other => {
            return Err(invalid(format!(
                "has recording version {}, which this Crewgraph does not read (it reads version {RECORDING_VERSION})",
                other.map_or_else(|| "none".to_owned(), |v| v.to_string())
            )))
        }
    }
    let events = value.get("events").and_then(Value::as_array).ok_or_else(|| invalid("has no list of events".into()))?;
    for (i, event) in events.iter().enumerate() {
        serde_json::from_value::<RunEvent>(event.clone()).map_err(|e| {
            let kind = event.get("type").and_then(Value::as_str).unwrap_or("?");
            invalid(format!("holds an event this Crewgraph does not know: event {} ('{kind}'): {e}", i + 1))
        })?;
    }
    let recording: Recording = serde_json::from_value(value).map_err(|e| invalid(format!("is not a run recording: {e}")))?;
    check_events(&recording).map_err(invalid)?;
    Ok(recording)
}

/// The events are the run's, numbered from 0 without a gap.
fn check_events(recording: &Recording) -> Result<(), String> {
    if recording.events.is_empty() {
        return Err("has no events: there is nothing to replay".into());
    }
    for (i, event) in recording.events.iter().enumerate() {
        if event.run_id != recording.run.id {
            return Err(format!("mixes runs: event {} belongs to '{}', the recording is of '{}'", i + 1, event.run_id, recording.run.id));
        }
        if event.seq != i as u64 {
            return Err(format!(
                "misses events: event {} has seq {}, expected {i} (the file was edited or joined from pieces)",
                i + 1,
                event.seq
            ));
        }
    }
    Ok(())
}
