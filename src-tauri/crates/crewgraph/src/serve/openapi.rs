//! The OpenAPI document (`GET /openapi.json`), generated: utoipa derives each
//! route's operation from its handler's `#[utoipa::path]` and each body's schema
//! from its type (`ToSchema`), and `utoipa-axum` registers a handler and its
//! operation together, so the document cannot drift from the routes. This file only
//! adds what is about the whole API: its title, the bearer token, the tags.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::state::AppState;

/// The name of the bearer-token security scheme in the document (also written
/// literally in `security(...)` above: the macro takes only a literal).
pub const BEARER: &str = "bearer";

/// The document's frame; the routes add their operations to it.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Crewgraph",
        description = "Crewgraph's API over HTTP: crews, validation, signal matching, runtime agents, models, \
                       routing, and runs with their events as server-sent events. Errors are always \
                       `{code, message}`. See docs/serve.md.",
        license(name = "MIT OR Apache-2.0")
    ),
    modifiers(&BearerToken),
    security(("bearer" = [])),
    tags(
        (name = "crews", description = "The crews of the crews folder, named relative to it"),
        (name = "editor", description = "The graph editor: open a crew for editing, check edits live, save (inside the crews folder only)"),
        (name = "agents", description = "Runtime agents: added to a crew without editing its files"),
        (name = "models", description = "The models agents use (never their keys)"),
        (name = "signals", description = "Signal matching"),
        (name = "runs", description = "Runs, their events (server-sent events), resume and cancel"),
        (name = "routing", description = "A gatekeeper service for crews of the `gatekeeper` strategy (`POST /gatekeeper`)"),
        (name = "server", description = "The server itself"),
    )
)]
pub struct ApiDoc;

/// Declares the bearer token (`--token`) every operation but `/health` asks for.
struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The server's token (`crewgraph serve --token`), when it has one"))
                    .build(),
            ),
        );
    }
}

/// Adds the answers every protected operation can give whatever it does, so the
/// document lists each status the server really sends: 401 without the token, and
/// 400 for a request whose path, query or body is malformed (an operation that takes
/// any of them). Run once the routes are in, on the whole document.
pub fn add_common_answers(document: &mut utoipa::openapi::OpenApi, public: &[&str]) {
    use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
    let error = |description: &str| {
        RefOr::T(
            ResponseBuilder::new()
                .description(description)
                .content("application/json", ContentBuilder::new().schema(Some(Ref::from_schema_name("ApiError"))).build())
                .build(),
        )
    };
    for (path, item) in document.paths.paths.iter_mut() {
        let protected = !public.contains(&path.as_str());
        let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
        for operation in operations.into_iter().flatten() {
            let answers = &mut operation.responses.responses;
            let takes_input =
                path.contains('{') || operation.parameters.as_ref().is_some_and(|p| !p.is_empty()) || operation.request_body.is_some();
            if takes_input && !answers.contains_key("400") {
                answers.insert("400".into(), error("A malformed request: a name, query or body this operation cannot read"));
            }
            if protected && !answers.contains_key("401") {
                answers.insert("401".into(), error("No token, or a wrong one (when the server has a token)"));
            }
        }
    }
}

/// This document.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "server",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API", content_type = "application/json"))
)]
pub async fn document(State(state): State<AppState>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], state.openapi.to_string())
}
