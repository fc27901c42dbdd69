//! Slow and greedy clients cannot hold the server: a request head that does not
//! arrive in time closes its connection, a body sent a byte now and then is cut off
//! with 408, and one address holds only its share of connections. Each limit is set
//! short here; the waits around them are generous, so a busy machine passes too.

use std::time::Duration;

use crewgraph::serve::listen::Limits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Setup, TestServer, LIMIT};

async fn connect(server: &TestServer) -> TcpStream {
    TcpStream::connect(server.base.trim_start_matches("http://")).await.unwrap()
}

/// Reads until the server closes the connection (within [`LIMIT`]); what it sent.
async fn read_to_close(socket: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    tokio::time::timeout(LIMIT, socket.read_to_end(&mut answer)).await.expect("the server closes the connection").ok();
    String::from_utf8_lossy(&answer).into_owned()
}

/// A GET /health on its own connection: the status line.
async fn health(server: &TestServer) -> String {
    let mut socket = connect(server).await;
    socket.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.unwrap();
    read_to_close(&mut socket).await.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_sent_too_slowly_closes_its_connection() {
    let limits = Limits { header_read: Duration::from_millis(500), ..Limits::default() };
    let server = TestServer::start_with(Setup { connections: Some(limits), ..Setup::default() }).await;
    let mut socket = connect(&server).await;
    socket.write_all(b"GET /health HTTP/1.1\r\nHost: loc").await.unwrap();
    // Nothing more is sent: the server must end it (it may say 408 first).
    let answer = read_to_close(&mut socket).await;
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert_eq!(health(&server).await, "HTTP/1.1 200 OK", "others are served all the while");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_sent_a_byte_at_a_time_is_cut_off_with_408() {
    let server = TestServer::start_with(Setup { request_timeout: Some(Duration::from_secs(1)), ..Setup::default() }).await;
    let mut socket = connect(&server).await;
    let head = "POST /match HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{";
    socket.write_all(head.as_bytes()).await.unwrap();
    let dribble = async {
        // One byte now and then, never the whole body, until the server gives up.
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if socket.write_all(b" ").await.is_err() {
                break;
            }
            let mut peek = [0u8; 1];
            if let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(1), socket.peek(&mut peek)).await {
                if n > 0 {
                    break;
                }
            }
        }
    };
    tokio::time::timeout(LIMIT, dribble).await.expect("the server answers before the body is complete");
    let answer = read_to_close(&mut socket).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"invalid_input\"") && answer.contains("not complete in time"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_only_its_share_of_connections() {
    let limits = Limits { per_client: 3, header_read: Duration::from_secs(60) };
    let server = TestServer::start_with(Setup { connections: Some(limits), ..Setup::default() }).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut socket = connect(&server).await;
        // A request answered keeps the connection (keep-alive) and proves it was taken.
        socket.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n").await.unwrap();
        let mut buffer = [0u8; 256];
        let n = tokio::time::timeout(LIMIT, socket.read(&mut buffer)).await.unwrap().unwrap();
        assert!(String::from_utf8_lossy(&buffer[..n]).starts_with("HTTP/1.1 200"));
        held.push(socket);
    }
    let mut fourth = connect(&server).await;
    let _ = fourth.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    assert_eq!(read_to_close(&mut fourth).await, "", "a fourth connection is closed unanswered");
    drop(held.pop());
    // Its share comes back once the server has seen the connection close.
    let served = async {
        loop {
            if health(&server).await == "HTTP/1.1 200 OK" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(LIMIT, served).await.expect("a new connection is served once one closed");
}
