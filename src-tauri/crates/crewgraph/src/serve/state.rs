//! What every handler shares: the one [`Api`], the
//! token (if any), and the OpenAPI document (built once, served as is).

use std::sync::Arc;

use super::auth::Token;
use crate::api::Api;

/// The server's shared state (cheap to clone).
#[derive(Clone)]
pub struct AppState {
    pub api: Api,
    pub token: Option<Token>,
    /// `/openapi.json`, serialized once.
    pub openapi: Arc<str>,
}
