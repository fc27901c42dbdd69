//! What the server refuses, and how: without its token, every API route is 401 (but
//! `/health`); crew names that would reach outside the crews folder are 400 however
//! they are spelt; bodies over the limit are 413, malformed ones 400, non-JSON ones
//! 415; unknown routes 404 and wrong methods 405 — every one a JSON `{code, message}`.
//! And CORS is closed: no answer invites another origin to read it.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{assert_error_shape, Answer, Setup, TestServer, SECRET};

const TOKEN: &str = "a-long-random-token-for-the-tests-7f3a9c";

async fn with_token(server: &TestServer, method: Method, path: &str, token: Option<&str>) -> Answer {
    let mut request = server.http.request(method, server.url(path));
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    Answer::read(request.send().await.unwrap()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_every_api_route_wants_it_and_health_does_not() {
    let server = TestServer::start_with(Setup { token: Some(TOKEN.into()), ..Setup::default() }).await;
    for (method, path) in [
        (Method::GET, "/crews"),
        (Method::GET, "/crews/exam.yaml"),
        (Method::GET, "/crews/exam.yaml/validation"),
        (Method::POST, "/crews/exam.yaml/route"),
        (Method::GET, "/crews/exam.yaml/agents"),
        (Method::DELETE, "/crews/exam.yaml/agents/x"),
        (Method::POST, "/match"),
        (Method::GET, "/models"),
        (Method::PUT, "/models/x"),
        (Method::POST, "/models/x/default"),
        (Method::GET, "/runs"),
        (Method::POST, "/runs"),
        (Method::GET, "/runs/r"),
        (Method::POST, "/runs/r/resume"),
        (Method::POST, "/runs/r/cancel"),
        (Method::GET, "/runs/r/events"),
        (Method::POST, "/gatekeeper"),
        (Method::GET, "/openapi.json"),
    ] {
        let missing = with_token(&server, method.clone(), path, None).await;
        missing.assert_error(StatusCode::UNAUTHORIZED, "unauthorized");
        assert_eq!(missing.headers["www-authenticate"], "Bearer", "{method} {path}");
        let wrong = with_token(&server, method.clone(), path, Some("a-long-random-token-for-the-tests-7f3a9d")).await;
        wrong.assert_error(StatusCode::UNAUTHORIZED, "unauthorized");
        let short = with_token(&server, method.clone(), path, Some("a")).await;
        short.assert_error(StatusCode::UNAUTHORIZED, "unauthorized");
    }
    let health = with_token(&server, Method::GET, "/health", None).await;
    assert_eq!(health.status, StatusCode::OK);
    let crews = with_token(&server, Method::GET, "/crews", Some(TOKEN)).await;
    assert_eq!(crews.status, StatusCode::OK);
    let lower = server.http.get(server.url("/crews")).header("authorization", format!("bearer {TOKEN}")).send().await.unwrap();
    assert_eq!(lower.status(), StatusCode::OK, "the scheme is case-insensitive");
    let basic = server.http.get(server.url("/crews")).basic_auth("user", Some(TOKEN)).send().await.unwrap();
    assert_eq!(basic.status(), StatusCode::UNAUTHORIZED, "only a bearer token counts");
}

/// A GET of `path` exactly as written (no client-side URL clean-up); the raw answer.
async fn raw_get(server: &TestServer, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut socket = tokio::net::TcpStream::connect(server.base.trim_start_matches("http://")).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    socket.read_to_string(&mut answer).await.unwrap();
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crew_names_that_would_leave_the_crews_folder_are_refused_however_spelt() {
    let server = TestServer::start().await;
    let outside = server.fixture.dir.path().join("secret.yaml");
    let absolute = outside.to_str().unwrap().replace('/', "%2F");
    for name in [
        "..%2Fsecret.yaml",
        "%2e%2e%2Fsecret.yaml",
        "go-quiz%2F..%2F..%2Fsecret.yaml",
        "%2Fetc%2Fpasswd",
        absolute.as_str(),
        "link.yaml",
        "..%5Csecret.yaml",
        ".%2Fexam.yaml",
        "exam.yaml%00",
    ] {
        for path in [format!("/crews/{name}"), format!("/crews/{name}/validation"), format!("/crews/{name}/agents")] {
            let answer = server.get(&path).await;
            answer.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
            assert!(!answer.text.contains(SECRET), "{path} leaked the file: {}", answer.text);
        }
    }
    // A bare `..` segment, even encoded, is resolved by clients before it is sent
    // (URL rules); sent as is, the server refuses it too.
    for raw in ["/crews/%2E%2E", "/crews/%2e%2e/validation", "/crews/../secret.yaml"] {
        let answer = raw_get(&server, raw).await;
        assert!(answer.starts_with("HTTP/1.1 400") || answer.starts_with("HTTP/1.1 404"), "{raw}: {answer}");
        assert!(answer.contains("\"code\":"), "{raw}: {answer}");
        assert!(!answer.contains(SECRET), "{raw}: {answer}");
    }
    // Through an ordinary client, `..` never reaches a handler: it resolves it first.
    for path in ["/crews/../secret.yaml", "/crews/%2e%2e/secret.yaml"] {
        let answer = server.get(path).await;
        assert!(answer.status.is_client_error(), "{path}: {answer:?}");
        assert_error_shape(&answer);
        assert!(!answer.text.contains(SECRET));
    }
    for crew in ["../secret.yaml", outside.to_str().unwrap(), "link.yaml", "go-quiz/../../secret.yaml"] {
        let answer = server.post("/runs", json!({"crew": crew, "input": "go", "script": {"replies": {}}})).await;
        answer.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    }
    assert_eq!(server.get("/runs").await.json, json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_413_with_a_json_error() {
    let server = TestServer::start_with(Setup { body_limit: Some(64 * 1024), ..Setup::default() }).await;
    let big = json!({"signal": "[END]", "content": "x".repeat(100 * 1024)});
    let bytes = serde_json::to_vec(&big).unwrap();
    // Over and over, each followed by a small request on the same client: the 413
    // closes its connection and says so, so the client's pool never sends the next
    // request down a socket the server is closing.
    for _ in 0..20 {
        let answer = server.post("/match", big.clone()).await;
        answer.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "invalid_input");
        assert_eq!(answer.headers.get("connection").and_then(|v| v.to_str().ok()), Some("close"));
        let small = server.post("/match", json!({"signal": "[END]", "content": "[END]"})).await;
        assert_eq!(small.status, StatusCode::OK, "the server still answers");
        // Without a Content-Length (chunked), the limit holds as the body streams in.
        let chunks = futures_util::stream::iter(bytes.chunks(8192).map(|c| Ok::<_, std::io::Error>(c.to_vec())).collect::<Vec<_>>());
        let streamed = server
            .http
            .post(server.url("/match"))
            .header("content-type", "application/json")
            .body(reqwest::Body::wrap_stream(chunks))
            .send()
            .await
            .unwrap();
        Answer::read(streamed).await.assert_error(StatusCode::PAYLOAD_TOO_LARGE, "invalid_input");
        let small = server.post("/match", json!({"signal": "[END]", "content": "[END]"})).await;
        assert_eq!(small.status, StatusCode::OK, "the server still answers");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_non_json_bodies_are_400_and_415() {
    let server = TestServer::start().await;
    let raw = |body: &'static str, content_type: Option<&'static str>| {
        let mut request = server.http.post(server.url("/match")).body(body);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        async move { Answer::read(request.send().await.unwrap()).await }
    };
    for body in ["{", "{\"signal\": }", "[1, 2", "nul", "\"just a string\"", "{\"signal\":\"[END]\",\"content\":\"x\",\"extra\":1}"] {
        raw(body, Some("application/json")).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    }
    raw("", Some("application/json")).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    raw("{\"signal\":\"[END]\",\"content\":\"x\"}", Some("text/plain"))
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "invalid_input");
    raw("{\"signal\":\"[END]\",\"content\":\"x\"}", None).await.assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "invalid_input");
    let ok = raw("{\"signal\":\"[END]\",\"content\":\"x\"}", Some("application/json; charset=utf-8")).await;
    assert_eq!(ok.status, StatusCode::OK);
    let not_utf8 = server
        .http
        .post(server.url("/match"))
        .header("content-type", "application/json")
        .body(vec![b'{', 0xff, 0xfe, b'}'])
        .send()
        .await
        .unwrap();
    Answer::read(not_utf8).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_are_404_and_wrong_methods_405_in_json() {
    let server = TestServer::start().await;
    for (method, path) in [(Method::GET, "/nope"), (Method::POST, "/nope/deeper"), (Method::GET, "/"), (Method::GET, "/api/crews")] {
        server.call(method, path, None).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    for (method, path, allowed) in [
        (Method::DELETE, "/crews", "GET,HEAD"),
        (Method::PUT, "/runs", "GET,HEAD,POST"),
        (Method::GET, "/match", "POST"),
        (Method::GET, "/runs/r/cancel", "POST"),
        (Method::POST, "/health", "GET,HEAD"),
    ] {
        let answer = server.call(method.clone(), path, None).await;
        answer.assert_error(StatusCode::METHOD_NOT_ALLOWED, "invalid_input");
        assert_eq!(answer.headers["allow"], allowed, "{method} {path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_is_closed_no_answer_invites_another_origin() {
    let server = TestServer::start().await;
    let simple = server.http.get(server.url("/crews")).header("origin", "https://evil.example").send().await.unwrap();
    assert!(simple.headers().keys().all(|k| !k.as_str().starts_with("access-control-")), "{:?}", simple.headers());
    let preflight = server
        .http
        .request(Method::OPTIONS, server.url("/runs"))
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_client_error(), "a preflight is not granted: {}", preflight.status());
    assert!(preflight.headers().keys().all(|k| !k.as_str().starts_with("access-control-")));
}
