//! Property test of every route that takes a body: arbitrary bytes, arbitrary JSON,
//! and objects with the routes' own field names holding values of any type are sent
//! (as JSON, with and without the JSON content type). Whatever comes, the server
//! never answers 5xx, and every error is a JSON `{code, message}`.

use proptest::prelude::*;
use reqwest::Method;
use serde_json::{json, Map, Value};

use super::{assert_error_shape, Answer, TestServer};

/// The routes that take a body.
const ROUTES: [(&str, &str); 14] = [
    ("POST", "/match"),
    ("POST", "/runs"),
    ("POST", "/runs/run-fuzz/resume"),
    ("POST", "/crews/ping-pong.yaml/route"),
    ("POST", "/crews/ping-pong.yaml/agents"),
    ("PUT", "/models/fuzz"),
    ("POST", "/editor/check"),
    ("POST", "/editor/save"),
    ("POST", "/editor/yaml"),
    ("POST", "/editor/instructions"),
    ("POST", "/editor/signal-name"),
    ("POST", "/runs/run-fuzz/reply"),
    ("POST", "/recordings/check"),
    ("POST", "/gatekeeper"),
];

/// Field names the routes take, so generated objects often get past the first check.
const FIELDS: [&str; 27] = [
    "signal",
    "content",
    "crew",
    "input",
    "script",
    "model",
    "agent",
    "query",
    "yaml",
    "provider",
    "base_url",
    "key_name",
    "max_tokens",
    "default",
    "replies",
    "spec",
    "path",
    "layout",
    "positions",
    "name",
    "script_file",
    "typed",
    "text",
    "original_query",
    "workflow_history",
    "current_output",
    "available_agents",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        ".{0,40}".prop_map(Value::String),
        // Crew-ish and script-ish strings: paths, YAML, signals.
        prop_oneof![
            Just("../secret.yaml"),
            Just("no-such-crew.yaml"),
            Just("replies: {}"),
            Just("[END]"),
            Just("id: x\n"),
            Just("/etc/passwd")
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(FIELDS.to_vec()), inner.clone()), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<_, _>>())),
            prop::collection::btree_map(".{0,8}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A body: raw bytes, or JSON text.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        json_value().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        // JSON cut short.
        json_value().prop_map(|v| {
            let mut text = serde_json::to_vec(&v).unwrap();
            text.truncate(text.len() / 2);
            text
        }),
    ]
}

#[test]
fn malformed_bodies_never_get_a_5xx_and_always_a_json_error() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = runtime.block_on(TestServer::start());
    let config = ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() };
    proptest!(config, |(route in prop::sample::select(ROUTES.to_vec()), body in body(), json_type in any::<bool>())| {
        let (method, path) = route;
        let answer = runtime.block_on(async {
            let mut request = server.http.request(Method::from_bytes(method.as_bytes()).unwrap(), server.url(path)).body(body.clone());
            if json_type {
                request = request.header("content-type", "application/json");
            }
            Answer::read(request.send().await.unwrap()).await
        });
        prop_assert!(!answer.status.is_server_error(), "{method} {path} {:?}: {answer:?}", String::from_utf8_lossy(&body));
        if !answer.status.is_success() {
            assert_error_shape(&answer);
        }
    });
    // Whatever was sent, the server still answers.
    let health = runtime.block_on(server.get("/health"));
    assert!(health.status.is_success());
    drop(server);
}
