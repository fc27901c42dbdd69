//! A crew's kept versions, as every store keeps them: each distinct version of a
//! crew's text that was run or saved, numbered 1, 2, 3 … per crew and known by
//! its fingerprint. The SQLite store and the PostgreSQL store both keep them in a
//! `crew_revisions` table; these are the values they take and give back.

use super::time::Timestamp;

/// A crew version to save.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewCrewRevision {
    /// The crew file or folder.
    pub path: String,
    pub name: String,
    /// The crew file's text (for a folder, its files as the engine joins them).
    pub yaml: String,
    /// The engine's fingerprint of the crew: equal fingerprints, same revision.
    pub fingerprint: String,
    pub saved_at: Timestamp,
}

/// A stored crew version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrewRevision {
    /// 1, 2, 3 … per crew, in the order they were first saved.
    pub revision: u32,
    pub name: String,
    pub yaml: String,
    pub fingerprint: String,
    /// When it was first saved.
    pub saved_at: Timestamp,
}
