//! One operation of the API, declared once.
//!
//! An operation is an [`Operation`] impl: its request type (a struct whose fields are
//! everything it takes — its own, or one several operations share), its name, how it is reached
//! over HTTP (or that it is not: [`Route`] is `None` for what only the window may
//! do, such as writing a file at a path of this machine), which error codes it
//! answers, what its answer is, and does it by calling the [`Api`]. Everything else
//! comes from that declaration, in [`super::operations`]:
//!
//! - the window calls it through one Tauri command (`call`, see `src-tauri`) with
//!   the operation's name and its request as JSON ([`super::operations::call`]);
//! - the HTTP server routes it (`crate::serve::routes`): the route's `{names}` and
//!   its query fill the request's fields of those names, the JSON body the rest;
//! - the OpenAPI document describes it from the same types;
//! - the UI's TypeScript client is typed by the generated `ui/src/bindings/operations.ts`
//!   (the request, the answer, the error codes of every operation), so a renamed
//!   field is a compile error in the UI.
//!
//! ```text
//! /// Opens a crew file or crew folder.
//! pub struct OpenCrew;
//!
//! impl Operation for OpenCrew {
//!     type Request = WhichCrew;
//!     const NAME: &'static str = "open_crew";
//!     const SUMMARY: &'static str = "Opens a crew: its graph and every problem";
//!     const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}", "crews"));
//!     const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::InvalidInput];
//!     type Answer = CrewDocument;
//!     fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> { schema_of::<CrewDocument>(schemas) }
//!     async fn call(request: WhichCrew, api: &Api) -> Result<CrewDocument, ApiError> { … }
//! }
//! ```
//! and one line, `visitor.visit::<OpenCrew>()`, in the list of [`super::operations`].

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode};

/// The schemas an operation's types refer to, by name (OpenAPI components).
pub type Schemas = Vec<(String, RefOr<Schema>)>;

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    /// Its name, as HTTP and the TypeScript client say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// How an operation is reached over HTTP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub method: Method,
    /// The path, with `{field}` for the request's fields that are part of it.
    pub path: &'static str,
    /// The status of a successful answer (204: no body).
    pub status: u16,
    /// The OpenAPI tag it is listed under.
    pub tag: &'static str,
}

impl Route {
    /// `GET path`, answering 200.
    pub const fn get(path: &'static str, tag: &'static str) -> Self {
        Self { method: Method::Get, path, status: 200, tag }
    }

    /// `POST path`, answering 200.
    pub const fn post(path: &'static str, tag: &'static str) -> Self {
        Self { method: Method::Post, path, status: 200, tag }
    }

    /// `PUT path`, answering 200.
    pub const fn put(path: &'static str, tag: &'static str) -> Self {
        Self { method: Method::Put, path, status: 200, tag }
    }

    /// `DELETE path`, answering 200.
    pub const fn delete(path: &'static str, tag: &'static str) -> Self {
        Self { method: Method::Delete, path, status: 200, tag }
    }

    /// The same route answering `status` (201, 202, 204).
    pub const fn answering(self, status: u16) -> Self {
        Self { status, ..self }
    }

    /// The names in `{}` in its path, in order.
    pub fn fields(&self) -> impl Iterator<Item = &'static str> {
        self.path.split('/').filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
    }
}

/// One operation (see the module overview).
pub trait Operation: Send + 'static {
    /// What it takes: a type of its own, or one several share
    /// ([`super::operations::WhichCrew`] …).
    type Request: DeserializeOwned + TS + ToSchema + Send + 'static;

    /// Its name: the window's command and the TypeScript client's key (snake_case).
    const NAME: &'static str;
    /// What it does, in one line (the OpenAPI summary).
    const SUMMARY: &'static str;
    /// Its HTTP route; None: the window only.
    const ROUTE: Option<Route>;
    /// The error codes it may answer besides `invalid_input` for a malformed request.
    const ERRORS: &'static [ApiErrorCode];

    /// Its answer.
    type Answer: Serialize + TS + Send + 'static;

    /// The answer's OpenAPI schema (with [`schema_of`], or [`any_object`] for the
    /// engine's types, whose exact shapes are the generated TypeScript).
    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema>;

    /// Does it.
    fn call(request: Self::Request, api: &Api) -> impl Future<Output = Result<Self::Answer, ApiError>> + Send;

    /// Headers of a successful HTTP answer besides its body (`Location` …).
    fn headers(_answer: &Self::Answer) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

/// `T`'s schema, with the schemas it refers to added to `schemas`.
pub fn schema_of<T: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    T::schemas(schemas);
    T::schema()
}

/// A JSON object (or a list of them, with `list`) whose shape the OpenAPI document
/// does not spell out.
pub fn any_object(list: bool) -> RefOr<Schema> {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder};
    let object = ObjectBuilder::new().build();
    if list {
        ArrayBuilder::new().items(object).build().into()
    } else {
        object.into()
    }
}
