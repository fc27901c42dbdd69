//! Request bodies: [`JsonBody`], a JSON extractor whose every failure is a 400 (or
//! 413, 415) with a `{code, message}` body saying what is wrong and where — unlike
//! axum's own, which answers 422 and plain text. An empty body reads as `null`, so
//! `JsonBody<Option<T>>` makes a body optional.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{header, StatusCode};
use crewgraph_engine::words::plain_message;
use serde::de::DeserializeOwned;

use super::error::HttpError;
use crate::api::ApiErrorCode;

/// A JSON request body, parsed into `T`.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = HttpError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = request.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("?").to_owned());
        let bytes = Bytes::from_request(request, state).await.map_err(|rejection| {
            let status = rejection.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                HttpError::new(status, ApiErrorCode::InvalidInput, "the request body is larger than this server takes")
            } else {
                HttpError::new(status, ApiErrorCode::InvalidInput, format!("the request body cannot be read: {}", rejection.body_text()))
            }
        })?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"null" } else { &bytes };
        if text != b"null" && !content_type.as_deref().is_some_and(is_json) {
            return Err(HttpError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ApiErrorCode::InvalidInput,
                format!(
                    "the request body must be JSON, sent with 'Content-Type: application/json' (it was sent as {})",
                    content_type.as_deref().unwrap_or("nothing")
                ),
            ));
        }
        serde_json::from_slice(text).map(JsonBody).map_err(|error| {
            // serde's words name Rust types ("struct SignalNameBody"): said plainly.
            let said = plain_message(&error.to_string());
            if text == b"null" {
                HttpError::invalid(format!("the request needs a JSON body ({said})"))
            } else {
                HttpError::invalid(format!("the request body is not what this route takes: {said}"))
            }
        })
    }
}

/// `application/json`, with or without parameters (`; charset=utf-8`), or `+json`.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

#[cfg(test)]
mod tests {
    use super::is_json;

    #[test]
    fn json_content_types_are_recognised_with_their_parameters() {
        assert!(is_json("application/json"));
        assert!(is_json("Application/JSON; charset=utf-8"));
        assert!(is_json("application/merge-patch+json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/x-www-form-urlencoded"));
    }
}
