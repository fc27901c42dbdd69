//! Request bodies: [`read_json`] reads one as JSON, and its every failure is a 400
//! (or 413, 415) with a `{code, message}` body saying what is wrong and where —
//! unlike axum's own extractor, which answers 422 and plain text. An empty body (or
//! `null`) is no body.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use crewgraph_engine::words::plain_message;
use serde_json::Value;

use super::error::HttpError;
use crate::api::ApiErrorCode;

/// The body's JSON, None when there is none; `content_type` is the request's.
pub fn read_json(content_type: Option<&str>, bytes: Result<Bytes, BytesRejection>) -> Result<Option<Value>, HttpError> {
    let bytes = bytes.map_err(|rejection| {
        let status = rejection.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            HttpError::new(status, ApiErrorCode::InvalidInput, "the request body is larger than this server takes")
        } else {
            HttpError::new(status, ApiErrorCode::InvalidInput, format!("the request body cannot be read: {}", rejection.body_text()))
        }
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if bytes.trim_ascii() == b"null" {
        return Ok(None);
    }
    if !content_type.is_some_and(is_json) {
        return Err(HttpError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiErrorCode::InvalidInput,
            format!(
                "the request body must be JSON, sent with 'Content-Type: application/json' (it was sent as {})",
                content_type.unwrap_or("nothing")
            ),
        ));
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|error| {
        HttpError::invalid(format!("the request body is not what this route takes: {}", plain_message(&error.to_string())))
    })?;
    Ok(Some(value))
}

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
