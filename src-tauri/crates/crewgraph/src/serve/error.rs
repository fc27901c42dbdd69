//! Errors over HTTP: always a JSON `{code, message}` body (the API's [`ApiError`])
//! with a status that fits it. [`HttpError`] is what handlers fail with;
//! [`json_errors`] catches the errors the framework makes itself (an unknown method,
//! a body over the limit, a path that does not decode) and gives them the same shape.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::api::{ApiError, ApiErrorCode};

/// The largest framework error body read to reuse its words.
const MAX_FOREIGN_BODY: usize = 4096;

/// A failed request: an API error, with the status it is answered with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpError {
    pub status: StatusCode,
    pub error: ApiError,
}

impl HttpError {
    /// An error with an explicit status.
    pub fn new(status: StatusCode, code: ApiErrorCode, message: impl Into<String>) -> Self {
        Self { status, error: ApiError::new(code, message) }
    }

    /// Input the server cannot take: 400.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, ApiErrorCode::InvalidInput, message)
    }

    /// Nothing there: 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, ApiErrorCode::NotFound, message)
    }
}

/// The status an API error is answered with.
pub fn status_of(code: ApiErrorCode) -> StatusCode {
    match code {
        ApiErrorCode::NotFound => StatusCode::NOT_FOUND,
        ApiErrorCode::InvalidInput => StatusCode::BAD_REQUEST,
        ApiErrorCode::InvalidCrew => StatusCode::UNPROCESSABLE_ENTITY,
        ApiErrorCode::Conflict => StatusCode::CONFLICT,
        ApiErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ApiErrorCode::Io | ApiErrorCode::Store => StatusCode::INTERNAL_SERVER_ERROR,
        ApiErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        Self { status: status_of(error.code), error }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.error)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// The code of a framework error, by its status.
fn code_of(status: StatusCode) -> ApiErrorCode {
    match status {
        StatusCode::NOT_FOUND => ApiErrorCode::NotFound,
        StatusCode::CONFLICT => ApiErrorCode::Conflict,
        StatusCode::UNAUTHORIZED => ApiErrorCode::Unauthorized,
        s if s.is_server_error() => ApiErrorCode::Io,
        _ => ApiErrorCode::InvalidInput,
    }
}

/// Gives every error response that is not JSON yet the `{code, message}` shape,
/// keeping its status and, where it has some, its words; a 413 or 408 also closes
/// its connection.
pub async fn json_errors(request: Request, next: Next) -> Response {
    let mut response = as_json(request, next).await;
    if matches!(response.status(), StatusCode::PAYLOAD_TOO_LARGE | StatusCode::REQUEST_TIMEOUT) {
        // The rest of the body was never read, so the connection cannot carry another
        // request: say so, or a client's pool sends its next request down a socket
        // the server is closing.
        response.headers_mut().insert(header::CONNECTION, header::HeaderValue::from_static("close"));
    }
    response
}

async fn as_json(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    let status = response.status();
    let is_json =
        response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let words = match axum::body::to_bytes(body, MAX_FOREIGN_BODY).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_owned(),
        Err(_) => String::new(),
    };
    let message = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            let allowed = parts.headers.get(header::ALLOW).and_then(|v| v.to_str().ok()).unwrap_or("");
            format!("{path} does not take {method} (it takes: {allowed})")
        }
        StatusCode::PAYLOAD_TOO_LARGE => "the request body is larger than this server takes (see docs/serve.md, limits)".to_owned(),
        StatusCode::REQUEST_TIMEOUT => "the request was not complete in time; it is cut off (see docs/serve.md, limits)".to_owned(),
        StatusCode::NOT_FOUND if words.is_empty() => format!("there is nothing at {path}"),
        _ if words.is_empty() => status.canonical_reason().unwrap_or("failed").to_lowercase(),
        _ => words,
    };
    let mut rebuilt = HttpError::new(status, code_of(status), message).into_response();
    for name in [header::ALLOW, header::WWW_AUTHENTICATE] {
        if let Some(value) = parts.headers.get(&name) {
            rebuilt.headers_mut().insert(name, value.clone());
        }
    }
    rebuilt
}

/// An empty 204 answer.
pub fn no_content() -> Response {
    Response::builder().status(StatusCode::NO_CONTENT).body(Body::empty()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_api_error_code_has_a_fitting_status() {
        assert_eq!(status_of(ApiErrorCode::InvalidCrew), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(status_of(ApiErrorCode::Conflict), StatusCode::CONFLICT);
        assert_eq!(status_of(ApiErrorCode::NotFound), StatusCode::NOT_FOUND);
        assert_eq!(status_of(ApiErrorCode::InvalidInput), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(ApiErrorCode::Unauthorized), StatusCode::UNAUTHORIZED);
    }
}
