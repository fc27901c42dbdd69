//! Server-sent events: a client that disconnects mid-run and comes back with
//! `Last-Event-ID` gets exactly the events it missed (no gap, no duplicate) through
//! to `run_finished`; many clients watch one run and see the same thing; and a client
//! that never reads is dropped (bounded buffering) while the others carry on, and it
//! catches up from the store when it comes back.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{assert_contiguous, messages, ping_pong, Message, Setup, TestServer, LIMIT};

fn seqs(messages: &[Message]) -> Vec<u64> {
    messages.iter().map(Message::seq).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_reconnects_with_last_event_id_gets_exactly_the_events_it_missed() {
    let server = TestServer::start().await;
    // 2 × 12 turns of 4 words, 60 ms each: well over a second of events.
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(12, 60, 4)).await;

    let first = messages(server.watch(&id, None).await, Some(15)).await;
    assert_eq!(first.len(), 15);
    assert_contiguous(&seqs(&first));
    assert!(first.iter().all(|m| m.id == m.seq().to_string()), "every message carries id: <seq>");
    let last = first.last().unwrap().seq();
    // The connection is gone; the run goes on without the client for a while.
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(server.get(&format!("/runs/{id}")).await.json["live"], json!(true), "the run is still going");

    let rest = messages(server.watch(&id, Some(last)).await, None).await;
    assert!(!rest.is_empty());
    assert_eq!(rest[0].seq(), last + 1, "it starts right after the last event the client had");
    let all: Vec<Message> = first.iter().chain(&rest).cloned().collect();
    assert_contiguous(&seqs(&all));
    assert_eq!(all.last().unwrap().kind(), "run_finished", "through to the end");
    assert_eq!(all.last().unwrap().data["status"], json!("terminated"));
    // And they are the events the store holds, byte for byte.
    let stored = server.stored_events(&id).await;
    assert_eq!(all.iter().map(|m| m.data.clone()).collect::<Vec<Value>>(), stored);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_in_the_query_resumes_like_last_event_id_and_the_header_wins() {
    let server = TestServer::start().await;
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(3, 0, 2)).await;
    server.settled(&id).await;
    let total = server.stored_events(&id).await.len() as u64;

    let by_query = server.http.get(server.url(&format!("/runs/{id}/events?after=4"))).send().await.unwrap();
    let by_query = messages(by_query, None).await;
    assert_eq!(seqs(&by_query), (5..total).collect::<Vec<_>>());

    let both = server.http.get(server.url(&format!("/runs/{id}/events?after=1"))).header("last-event-id", "7").send().await.unwrap();
    assert_eq!(seqs(&messages(both, None).await), (8..total).collect::<Vec<_>>(), "Last-Event-ID wins over ?after");

    // Nothing after the last event of a run that is over: 204 stops EventSource.
    let done = server.watch(&id, Some(total - 1)).await;
    assert_eq!(done.status(), StatusCode::NO_CONTENT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_clients_watch_one_run_and_see_the_same_events() {
    let server = TestServer::start().await;
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(6, 40, 3)).await;
    let watchers: Vec<_> = (0..5).map(|_| server.watch(&id, None)).collect();
    let mut seen = Vec::new();
    for watcher in futures_util::future::join_all(watchers).await {
        seen.push(messages(watcher, None).await);
    }
    let stored = server.stored_events(&id).await;
    for messages in &seen {
        assert_eq!(messages.iter().map(|m| m.data.clone()).collect::<Vec<Value>>(), stored);
    }
}

/// Reads raw HTTP until the chunked body ends; the SSE messages in it.
async fn read_raw_sse(socket: &mut tokio::net::TcpStream) -> Vec<(String, String)> {
    let mut raw = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let read = async {
        loop {
            let n = socket.read(&mut buffer).await.expect("read");
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&buffer[..n]);
            if raw.ends_with(b"\r\n0\r\n\r\n") {
                break;
            }
        }
    };
    tokio::time::timeout(LIMIT, read).await.expect("the slow client's stream ends");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("headers");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.to_ascii_lowercase().contains("transfer-encoding: chunked"), "{head}");
    // De-chunk: size line, data, CRLF.
    let mut data = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        data.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    data.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let field =
                |name: &str| block.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim_start().to_owned())).unwrap_or_default();
            (field("event:"), field("id:"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_is_dropped_while_the_others_carry_on_and_it_catches_up_later() {
    // Watchers may fall 32 events behind; the run makes about 8 MB of events, more
    // than the sockets between the server and a client that does not read can hold.
    // (The script itself is that big, so this server takes bigger bodies.)
    let setup = Setup { live_capacity: Some(32), body_limit: Some(16 << 20), ..Setup::default() };
    let server = TestServer::start_with(setup).await;
    let turns = 100;
    let reply =
        |who: &str, signal: &str| json!({"content": format!("{} {} {signal}", who.repeat(10_000), "z".repeat(10_000)), "delay_ms": 20});
    let mut ping: Vec<Value> = (1..turns).map(|_| reply("i", "[NEXT]")).collect();
    ping.push(reply("i", "[END]"));
    // The first turn waits, so both clients are connected before the flood starts.
    ping[0]["delay_ms"] = json!(800);
    let pong: Vec<Value> = (0..turns).map(|_| reply("o", "[NEXT]")).collect();
    let id = server.start_run("ping-pong.yaml", "go", json!({"replies": {"ping": ping, "pong": pong}})).await;

    // The slow client: a tiny receive window, and it reads nothing for now.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut slow = socket.connect(server.base.trim_start_matches("http://").parse().unwrap()).await.unwrap();
    let request = format!("GET /runs/{id}/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n");
    slow.write_all(request.as_bytes()).await.unwrap();

    // The other client reads as it comes (and, on a busy machine, comes back if it
    // too fell behind, as a browser would).
    let fast = super::follow(&server, &id).await;
    assert_contiguous(&seqs(&fast));
    assert_eq!(fast.last().unwrap().kind(), "run_finished", "the reading client got everything");
    assert_eq!(server.get("/health").await.status, StatusCode::OK, "the server answers others meanwhile");
    let total = fast.len();

    // Now the slow client reads what the server kept for it: a gap-free start, then
    // `lagged` — it was dropped, not buffered for.
    let got = read_raw_sse(&mut slow).await;
    let (lagged, events): (Vec<_>, Vec<_>) = got.iter().partition(|(event, _)| event == "lagged");
    assert_eq!(lagged.len(), 1, "the slow client is told it lagged: {got:?}");
    assert_eq!(got.last().unwrap().0, "lagged", "and that ends its stream");
    let slow_seqs: Vec<u64> = events.iter().map(|(_, id)| id.parse().unwrap()).collect();
    assert_contiguous(&slow_seqs);
    assert!(slow_seqs.len() < total, "it did not get the whole run buffered ({} of {total})", slow_seqs.len());

    // Coming back with its last id, it gets the rest from the store.
    let rest = messages(server.watch(&id, slow_seqs.last().copied()).await, None).await;
    let all: Vec<u64> = slow_seqs.iter().copied().chain(seqs(&rest)).collect();
    assert_contiguous(&all);
    assert_eq!(all.len(), total);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_server_interrupts_its_runs_and_tells_their_watchers() {
    let server = TestServer::start().await;
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(40, 100, 3)).await;
    let watching = server.watch(&id, None).await;
    let reader = tokio::spawn(messages(watching, None));
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(server.api.live_runs().watchers(&crewgraph_engine::RunId::from(id.as_str())), 1);
    let api = server.api.clone();
    let stopped = server.stop().await;
    assert_eq!(stopped.interrupted.iter().map(ToString::to_string).collect::<Vec<_>>(), vec![id.clone()]);
    assert!(stopped.drained, "every request ended in time");
    let seen = reader.await.unwrap();
    assert_eq!(seen.last().unwrap().event, "interrupted");
    let summary = api.run_summary(&crewgraph_engine::RunId::from(id.as_str())).await.unwrap();
    assert_eq!(summary.status.as_str(), "running", "interrupted, not ended: resumable");
    assert!(!api.is_live(&crewgraph_engine::RunId::from(id.as_str())));
}
