//! Every operation with a [`Route`] as an HTTP route, and its OpenAPI operation,
//! both made from the operation's declaration ([`crate::api::operations`]).
//!
//! A request becomes the operation's request type in one way for all: the route's
//! `{names}` fill the fields of those names (a body may not give them again), a GET's
//! or DELETE's query fills fields of the request type's schema (`?check=true`: a
//! boolean field is read as one), the JSON body — an object, or nothing — the rest; then the type
//! is read whole, so an unknown or missing field is a 400 saying which. The answer
//! is the operation's JSON with the route's status (204: no body) and the headers
//! the operation adds (`Location` …); a failure is the API's `{code, message}` with
//! the status of its code ([`crate::serve::error::status_of`]).

use std::collections::BTreeSet;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter};
use axum::Json;
use crewgraph_engine::words::plain_message;
use serde_json::{Map, Value};
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, SchemaType, Type};
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, Required, ResponseBuilder, Schema};
use utoipa::{PartialSchema, ToSchema};

use crate::api::operation::{Method, Schemas};
use crate::api::operations::{visit, Visitor};
use crate::api::{ApiError, ApiErrorCode, Operation, Route};
use crate::serve::error::{no_content, status_of, HttpError};
use crate::serve::json::read_json;
use crate::serve::state::AppState;

/// The router of every operation that has a route.
pub fn router() -> axum::Router<AppState> {
    struct Routes(axum::Router<AppState>);
    impl Visitor for Routes {
        fn visit<O: Operation>(&mut self) {
            let Some(route) = O::ROUTE else { return };
            let filter = match route.method {
                Method::Get => MethodFilter::GET,
                Method::Post => MethodFilter::POST,
                Method::Put => MethodFilter::PUT,
                Method::Delete => MethodFilter::DELETE,
            };
            let routes = std::mem::take(&mut self.0);
            self.0 = routes.route(route.path, on(filter, move |state, request| answer::<O>(route, state, request)));
        }
    }
    let mut routes = Routes(axum::Router::new());
    visit(&mut routes);
    routes.0
}

async fn answer<O: Operation>(route: Route, State(state): State<AppState>, request: Request) -> Result<Response, HttpError> {
    let (mut parts, body) = request.into_parts();
    let path: Vec<(String, String)> = if route.fields().next().is_some() {
        Path::<Vec<(String, String)>>::from_request_parts(&mut parts, &state)
            .await
            .map_err(|rejection| HttpError::invalid(format!("the address cannot be read: {}", rejection.body_text())))?
            .0
    } else {
        Vec::new()
    };
    let query: Vec<(String, String)> = Query::try_from_uri(&parts.uri)
        .map_err(|rejection| HttpError::invalid(format!("the query cannot be read: {}", rejection.body_text())))?
        .0;
    let content_type = parts.headers.get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("?").to_owned());
    let body = read_json(content_type.as_deref(), Bytes::from_request(Request::from_parts(parts, body), &state).await)?;
    let had_body = body.is_some();
    let mut fields = match body {
        None => Map::new(),
        Some(Value::Object(fields)) => fields,
        Some(_) => return Err(HttpError::invalid("the request body is not what this route takes: it must be a JSON object")),
    };
    for (name, value) in path {
        if fields.contains_key(&name) {
            return Err(HttpError::invalid(format!("'{name}' is part of the address ({}); leave it out of the body", route.path)));
        }
        fields.insert(name, Value::String(value));
    }
    // A GET's or DELETE's query fills fields; another method's takes them from its body.
    let takes_query = matches!(route.method, Method::Get | Method::Delete);
    let kinds = if takes_query { field_kinds::<O::Request>() } else { Vec::new() };
    for (name, value) in query {
        let Some(kind) = kinds.iter().find(|(field, _)| *field == name).map(|(_, kind)| *kind) else { continue };
        if fields.contains_key(&name) {
            continue;
        }
        fields.insert(name.clone(), query_value(&name, &value, kind)?);
    }
    let request: O::Request = serde_json::from_value(Value::Object(fields)).map_err(|error| {
        // serde's words name Rust types ("struct StartRun"): said plainly.
        let said = plain_message(&error.to_string());
        if takes_query && !had_body {
            HttpError::invalid(format!("the request is not what this route takes: {said}"))
        } else if had_body {
            HttpError::invalid(format!("the request body is not what this route takes: {said}"))
        } else {
            HttpError::invalid(format!("the request needs a JSON body ({said})"))
        }
    })?;
    let answer = O::call(request, &state.api).await?;
    let headers = O::headers(&answer);
    let mut response = if route.status == 204 {
        no_content()
    } else {
        let status = StatusCode::from_u16(route.status).unwrap_or(StatusCode::OK);
        (status, Json(answer)).into_response()
    };
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            response.headers_mut().insert(name, value);
        }
    }
    Ok(response)
}

/// What a query value is read as: the type of the request's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Boolean,
    Integer,
}

/// The request type's top-level fields and their kinds, from its schema.
fn field_kinds<O: ToSchema>() -> Vec<(String, Kind)> {
    let mut kinds = Vec::new();
    for object in objects(&O::schema()) {
        for (name, property) in &object.properties {
            let kind = match property {
                RefOr::T(Schema::Object(field)) => match &field.schema_type {
                    SchemaType::Type(Type::Boolean) => Kind::Boolean,
                    SchemaType::Type(Type::Integer) => Kind::Integer,
                    _ => Kind::Text,
                },
                _ => Kind::Text,
            };
            kinds.push((name.clone(), kind));
        }
    }
    kinds
}

fn query_value(name: &str, value: &str, kind: Kind) -> Result<Value, HttpError> {
    match kind {
        Kind::Text => Ok(Value::String(value.to_owned())),
        Kind::Boolean => match value {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(HttpError::invalid(format!("the query's '{name}' must be true or false, not '{value}'"))),
        },
        Kind::Integer => value
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| HttpError::invalid(format!("the query's '{name}' must be a whole number, not '{value}'"))),
    }
}

/// The plain objects a schema is made of (itself, or the parts of an `allOf`).
fn objects(schema: &RefOr<Schema>) -> Vec<&utoipa::openapi::schema::Object> {
    match schema {
        RefOr::T(Schema::Object(object)) => vec![object],
        RefOr::T(Schema::AllOf(all)) => all.items.iter().flat_map(objects).collect(),
        _ => Vec::new(),
    }
}

/// Adds every routed operation to `document`, with the schemas they refer to.
pub fn document(document: &mut OpenApi) {
    struct Documents<'a>(&'a mut OpenApi, Schemas);
    impl Visitor for Documents<'_> {
        fn visit<O: Operation>(&mut self) {
            let Some(route) = O::ROUTE else { return };
            let method = match route.method {
                Method::Get => HttpMethod::Get,
                Method::Post => HttpMethod::Post,
                Method::Put => HttpMethod::Put,
                Method::Delete => HttpMethod::Delete,
            };
            let operation = operation::<O>(route, &mut self.1);
            self.0.paths.add_path_operation(route.path, vec![method], operation);
        }
    }
    let mut schemas: Schemas = vec![(ApiError::name().into_owned(), ApiError::schema())];
    ApiError::schemas(&mut schemas);
    let mut documents = Documents(document, schemas);
    visit(&mut documents);
    let components = documents.0.components.get_or_insert_with(Default::default);
    for (name, schema) in documents.1 {
        components.schemas.entry(name).or_insert(schema);
    }
}

fn operation<O: Operation>(route: Route, schemas: &mut Schemas) -> utoipa::openapi::path::Operation {
    let path_fields: BTreeSet<&str> = route.fields().collect();
    O::Request::schemas(schemas);
    let mut request = O::Request::schema();
    let mut builder = OperationBuilder::new().operation_id(Some(O::NAME)).summary(Some(O::SUMMARY)).tag(route.tag);
    for field in &path_fields {
        builder = builder.parameter(
            ParameterBuilder::new().name(*field).parameter_in(ParameterIn::Path).required(Required::True).schema(Some(String::schema())),
        );
    }
    let takes_body = matches!(route.method, Method::Post | Method::Put);
    let mut body_required = false;
    for object in objects_mut(&mut request) {
        for field in &path_fields {
            object.properties.remove(*field);
            object.required.retain(|name| name != field);
        }
        body_required |= !object.required.is_empty();
        if !takes_body {
            for (name, property) in std::mem::take(&mut object.properties) {
                let required = if object.required.contains(&name) { Required::True } else { Required::False };
                builder = builder.parameter(
                    ParameterBuilder::new().name(name).parameter_in(ParameterIn::Query).required(required).schema(Some(property)),
                );
            }
        }
    }
    if takes_body && has_fields(&request) {
        body_required |= matches!(&request, RefOr::T(Schema::AllOf(all)) if all.items.iter().any(|item| matches!(item, RefOr::Ref(_))));
        // A body of only optional fields may be left out — or sent as `null`, which
        // is read as none (`serve::json`): the document says so.
        let request = if body_required {
            request
        } else {
            RefOr::T(Schema::OneOf(OneOfBuilder::new().item(request).item(ObjectBuilder::new().schema_type(Type::Null)).build()))
        };
        let content = ContentBuilder::new().schema(Some(request)).build();
        let required = if body_required { Required::True } else { Required::False };
        builder =
            builder.request_body(Some(RequestBodyBuilder::new().content("application/json", content).required(Some(required)).build()));
    }
    let status = route.status.to_string();
    let answer = if route.status == 204 {
        ResponseBuilder::new().description("Done").build()
    } else {
        let content = ContentBuilder::new().schema(Some(O::answer_schema(schemas))).build();
        ResponseBuilder::new().description(O::SUMMARY).content("application/json", content).build()
    };
    builder = builder.response(status, answer);
    let mut failures: Vec<StatusCode> = O::ERRORS.iter().chain([&ApiErrorCode::InvalidInput]).map(|code| status_of(*code)).collect();
    failures.sort();
    failures.dedup();
    for failure in failures {
        let content = ContentBuilder::new().schema(Some(Ref::from_schema_name("ApiError"))).build();
        let description = failure.canonical_reason().unwrap_or("Failed");
        builder = builder
            .response(failure.as_u16().to_string(), ResponseBuilder::new().description(description).content("application/json", content));
    }
    builder.build()
}

fn objects_mut(schema: &mut RefOr<Schema>) -> Vec<&mut utoipa::openapi::schema::Object> {
    match schema {
        RefOr::T(Schema::Object(object)) => vec![object],
        RefOr::T(Schema::AllOf(all)) => all.items.iter_mut().flat_map(objects_mut).collect(),
        _ => Vec::new(),
    }
}

/// Whether a body schema has anything left to say (an object with no fields is no body).
fn has_fields(schema: &RefOr<Schema>) -> bool {
    match schema {
        RefOr::T(Schema::Object(object)) => !object.properties.is_empty(),
        RefOr::T(Schema::AllOf(all)) => all.items.iter().any(has_fields),
        RefOr::Ref(_) => true,
        _ => true,
    }
}
