//! The server's token (`--token`): when one is set, every API route wants
//! `Authorization: Bearer <token>` and answers 401 without it. Tokens are compared
//! in constant time — both sides are hashed (SHA-256) and the digests compared with
//! `subtle`, so neither the token's bytes nor its length leak through timing.

use axum::extract::{Request, State};
use axum::http::header;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::error::HttpError;
use super::state::AppState;
use crate::api::ApiErrorCode;

/// A token, kept as its digest.
#[derive(Clone)]
pub struct Token([u8; 32]);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

impl Token {
    /// The token `text` (already checked not to be empty).
    pub fn new(text: &str) -> Self {
        Self(Sha256::digest(text.as_bytes()).into())
    }

    /// True when `presented` is the token, in time independent of both.
    pub fn matches(&self, presented: &str) -> bool {
        let presented: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        presented.ct_eq(&self.0).into()
    }
}

/// The bearer credentials of a request, if it sent any.
fn bearer(request: &Request) -> Option<&str> {
    let value = request.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, credentials) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| credentials.trim())
}

/// Lets a request through when the server has no token or the request carries it.
pub async fn require_token(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let Some(token) = &state.token else { return next.run(request).await };
    match bearer(&request) {
        Some(presented) if token.matches(presented) => next.run(request).await,
        Some(_) => unauthorized("the token is wrong"),
        None => unauthorized("this server wants its token: send 'Authorization: Bearer <token>'"),
    }
}

fn unauthorized(message: &str) -> Response {
    HttpError::new(StatusCode::UNAUTHORIZED, ApiErrorCode::Unauthorized, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::Token;

    #[test]
    fn only_the_very_token_matches() {
        let token = Token::new("s3cret-token");
        assert!(token.matches("s3cret-token"));
        assert!(!token.matches("s3cret-tokeN"));
        assert!(!token.matches("s3cret-token "));
        assert!(!token.matches(""));
        assert!(!token.matches("s3cret"));
    }
}
