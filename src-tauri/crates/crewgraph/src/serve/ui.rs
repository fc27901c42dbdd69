//! The web UI (`ui/dist`, which `make build` makes), served at `/` for a browser.
//! Its files are the same for everyone and hold no data, so they need no token; what
//! the UI then asks the API for does. Anything that is neither an API route nor a
//! file of the UI is a JSON 404, whatever the method.

use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::handler::HandlerWithoutStateExt;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use tower_http::services::ServeDir;

use super::error::HttpError;

/// Where the built UI is: `ui/dist` under the current folder, else under the
/// repository the binary was built in (`target/<profile>/crewgraph` → `../../ui/dist`).
pub fn default_dir() -> Option<PathBuf> {
    let here = PathBuf::from("ui/dist");
    if here.join("index.html").is_file() {
        return Some(here);
    }
    let exe = std::env::current_exe().ok()?;
    let built = exe.parent()?.parent()?.parent()?.join("ui/dist");
    built.join("index.html").is_file().then_some(built)
}

async fn not_found(request: Request) -> Response {
    HttpError::not_found(format!("there is nothing at {}", request.uri().path())).into_response()
}

async fn no_ui(request: Request) -> Response {
    if request.uri().path() == "/" {
        return HttpError::not_found(
            "the web UI is not built here: build it with 'make build' (it lands in ui/dist), or give its folder with --ui DIR",
        )
        .into_response();
    }
    not_found(request).await
}

/// What answers every path no API route takes: the UI's files, else a 404.
pub fn fallback(dir: Option<&Path>) -> MethodRouter {
    match dir.filter(|d| d.join("index.html").is_file()) {
        Some(dir) => {
            let files = ServeDir::new(dir)
                .append_index_html_on_directories(true)
                .call_fallback_on_method_not_allowed(true)
                .fallback(not_found.into_service());
            axum::routing::any_service(files)
        }
        None => axum::routing::any(no_ui),
    }
}
