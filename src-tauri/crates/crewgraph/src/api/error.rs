//! The API's error: exactly `{code, message}` across the IPC boundary and in every
//! HTTP error body (STYLE.md habit 6). A code exists only where the UI branches on it.

use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

/// What kind of failure, for the UI to branch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS, ToSchema)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ApiErrorCode {
    /// A file or folder that does not exist.
    NotFound,
    /// Input the operation cannot accept (a malformed signal, say).
    InvalidInput,
    /// The disk refused (permissions, a folder where a file was expected …).
    Io,
    /// The crew has errors and cannot run.
    InvalidCrew,
    /// Someone else got there first (a run resumed twice, a database locked).
    Conflict,
    /// The run store failed.
    Store,
    /// The HTTP server wants its token (`Authorization: Bearer …`) and did not get
    /// it, or got a wrong one: the browser UI asks the person for it.
    Unauthorized,
    /// Crewgraph cannot be reached (the server is gone), or cannot do this here (a
    /// browser reads or writes no file of the server's machine by its path).
    Unavailable,
}

impl ApiErrorCode {
    /// The code as it crosses to the UI (`not_found` …).
    pub fn as_str(self) -> &'static str {
        match self {
            ApiErrorCode::NotFound => "not_found",
            ApiErrorCode::InvalidInput => "invalid_input",
            ApiErrorCode::Io => "io",
            ApiErrorCode::InvalidCrew => "invalid_crew",
            ApiErrorCode::Conflict => "conflict",
            ApiErrorCode::Store => "store",
            ApiErrorCode::Unauthorized => "unauthorized",
            ApiErrorCode::Unavailable => "unavailable",
        }
    }
}

/// A failed API call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error, TS, ToSchema)]
#[error("{message}")]
#[ts(export)]
pub struct ApiError {
    pub code: ApiErrorCode,
    pub message: String,
}

impl ApiError {
    /// An error with a code and a message for people.
    pub fn new(code: ApiErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}
