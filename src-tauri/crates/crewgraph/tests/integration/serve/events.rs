//! Server-sent events: a client that disconnects mid-run and comes back with
//! `Last-Event-ID` gets exactly the events it missed (no gap, no duplicate) through
//! to `run_finished`; many clients watch one run and see the same thing; and a client
//! that never reads is dropped (bounded buffering) while the others carry on, and it
//! catches up from the store when it comes back. With `?batches=true` the same
//! events come in batches (`event: batch`, a `RunBatch`), each `id:` its last seq,
//! the last one saying how the watch ended — finished, lagged or interrupted.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{assert_contiguous, messages, ping_pong, Message, Setup, TestServer, LIMIT};

fn seqs(messages: &[Message]) -> Vec<u64> {
    messages.iter().map(Message::seq).collect()
}

/// Opens `GET /runs/{id}/events?batches=true`, with `Last-Event-ID` when given.
async fn watch_batches(server: &TestServer, id: &str, last_event_id: Option<u64>) -> reqwest::Response {
    let mut request = server.http.get(server.url(&format!("/runs/{id}/events?batches=true")));
    if let Some(last) = last_event_id {
        request = request.header("last-event-id", last.to_string());
    }
    request.send().await.unwrap()
}

/// The events of batch messages, in order.
fn batch_events(batches: &[Message]) -> Vec<Value> {
    batches.iter().flat_map(|b| b.data["events"].as_array().unwrap_or_else(|| panic!("not a batch: {b:?}")).clone()).collect()
}

fn event_seqs(events: &[Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

/// Asserts every message is a batch whose `id:` is its last event's seq (none when
/// it has no event), and only the last one says how the watch ended.
#[track_caller]
fn assert_batches(batches: &[Message]) {
    assert!(!batches.is_empty());
    for (i, batch) in batches.iter().enumerate() {
        assert_eq!(batch.event, "batch", "{batch:?}");
        let last = batch.data["events"].as_array().unwrap().last().map(|e| e["seq"].to_string()).unwrap_or_default();
        if batch.data["end"] != json!("interrupted") {
            assert_eq!(batch.id, last, "a batch's id is its last seq, for Last-Event-ID: {batch:?}");
        }
        let is_last = i + 1 == batches.len();
        assert_eq!(batch.data["end"].is_null(), !is_last, "only the last batch ends the watch: {batch:?}");
    }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_hold_every_event_once_in_order_and_the_last_says_the_leg_finished() {
    let server = TestServer::start().await;
    // 2 × 6 turns of 3 words, 40 ms each: replies stream while the client watches.
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(6, 40, 3)).await;
    let batches = messages(watch_batches(&server, &id, None).await, None).await;
    assert_batches(&batches);
    assert_eq!(batches.last().unwrap().data["end"], json!("finished"));
    let events = batch_events(&batches);
    assert_eq!(events, server.stored_events(&id).await, "the stored events, byte for byte, none merged or dropped");
    assert!(batches.len() < events.len(), "events are gathered ({} batches for {} events)", batches.len(), events.len());

    // Without `batches` the stream is as it was: one unnamed message per event.
    let plain = messages(server.watch(&id, None).await, None).await;
    assert!(plain.iter().all(|m| m.event == "message" && m.id == m.seq().to_string()));
    assert_eq!(plain.iter().map(|m| m.data.clone()).collect::<Vec<_>>(), events);

    // Nothing after the last event of a run that is over: 204, batches or not.
    let after = *event_seqs(&events).last().unwrap();
    assert_eq!(watch_batches(&server, &id, Some(after)).await.status(), StatusCode::NO_CONTENT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_client_that_reconnects_with_the_last_batch_id_gets_exactly_the_events_it_missed() {
    let server = TestServer::start().await;
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(12, 60, 4)).await;
    let first = messages(watch_batches(&server, &id, None).await, Some(3)).await;
    assert!(first.iter().all(|b| b.data["end"].is_null()), "the run goes on: {first:?}");
    let last: u64 = first.last().unwrap().id.parse().expect("the last batch's id is a seq");
    tokio::time::sleep(Duration::from_millis(250)).await;

    // As a browser would: Last-Event-ID is the last batch's id.
    let rest = messages(watch_batches(&server, &id, Some(last)).await, None).await;
    assert_batches(&rest);
    assert_eq!(rest.last().unwrap().data["end"], json!("finished"));
    let all: Vec<Value> = batch_events(&first).into_iter().chain(batch_events(&rest)).collect();
    assert_contiguous(&event_seqs(&all));
    assert_eq!(all, server.stored_events(&id).await);

    // `?after` works as well, and the header wins over it.
    let both =
        server.http.get(server.url(&format!("/runs/{id}/events?batches=true&after=1"))).header("last-event-id", "7").send().await.unwrap();
    assert_eq!(event_seqs(&batch_events(&messages(both, None).await))[0], 8);
}

/// One SSE message as `read_raw_sse` reads it: its event name, id and data.
type RawMessage = (String, String, String);

/// Reads raw HTTP until the chunked body ends; the SSE messages in it.
async fn read_raw_sse(socket: &mut tokio::net::TcpStream) -> Vec<RawMessage> {
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
            (field("event:"), field("id:"), field("data:"))
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

    // The slow clients, one per form: a tiny receive window, and they read nothing for now.
    let slow_client = |query: &'static str| {
        let address = server.base.trim_start_matches("http://").parse().unwrap();
        let request = format!("GET /runs/{id}/events{query} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n");
        async move {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.set_recv_buffer_size(4096).unwrap();
            let mut slow = socket.connect(address).await.unwrap();
            slow.write_all(request.as_bytes()).await.unwrap();
            slow
        }
    };
    let mut slow = slow_client("").await;
    let mut slow_batches = slow_client("?batches=true").await;

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
    let (lagged, events): (Vec<_>, Vec<_>) = got.iter().partition(|(event, _, _)| event == "lagged");
    assert_eq!(lagged.len(), 1, "the slow client is told it lagged: {got:?}");
    assert_eq!(got.last().unwrap().0, "lagged", "and that ends its stream");
    let slow_seqs: Vec<u64> = events.iter().map(|(_, id, _)| id.parse().unwrap()).collect();
    assert_contiguous(&slow_seqs);
    assert!(slow_seqs.len() < total, "it did not get the whole run buffered ({} of {total})", slow_seqs.len());

    // Coming back with its last id, it gets the rest from the store.
    let rest = messages(server.watch(&id, slow_seqs.last().copied()).await, None).await;
    let all: Vec<u64> = slow_seqs.iter().copied().chain(seqs(&rest)).collect();
    assert_contiguous(&all);
    assert_eq!(all.len(), total);

    // The slow batch client alike: batches without a gap, the last one `lagged`, and
    // no more than the live ring and the sockets held.
    let got = read_raw_sse(&mut slow_batches).await;
    assert!(got.iter().all(|(event, _, _)| event == "batch"), "{got:?}");
    let batches: Vec<Value> = got.iter().map(|(_, _, data)| serde_json::from_str(data).unwrap()).collect();
    assert_eq!(batches.last().unwrap()["end"], json!("lagged"), "the slow batch client is told it lagged");
    assert!(batches[..batches.len() - 1].iter().all(|b| b["end"].is_null()));
    let slow_seqs = event_seqs(&batches.iter().flat_map(|b| b["events"].as_array().unwrap().clone()).collect::<Vec<_>>());
    assert_contiguous(&slow_seqs);
    assert!(slow_seqs.len() < total, "it did not get the whole run buffered ({} of {total})", slow_seqs.len());
    let last_id = got.iter().rev().find(|(_, id, _)| !id.is_empty()).map(|(_, id, _)| id.parse::<u64>().unwrap());
    assert_eq!(last_id, slow_seqs.last().copied(), "its last id is the last event it got");
    let rest = messages(watch_batches(&server, &id, last_id).await, None).await;
    let all: Vec<u64> = slow_seqs.iter().copied().chain(event_seqs(&batch_events(&rest))).collect();
    assert_contiguous(&all);
    assert_eq!(all.len(), total);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_server_interrupts_its_runs_and_tells_their_watchers() {
    let server = TestServer::start().await;
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(40, 100, 3)).await;
    let reader = tokio::spawn(messages(server.watch(&id, None).await, None));
    let batch_reader = tokio::spawn(messages(watch_batches(&server, &id, None).await, None));
    let run_id = crewgraph_engine::RunId::from(id.as_str());
    let deadline = std::time::Instant::now() + LIMIT;
    while server.api.live_runs().watchers(&run_id) < 2 {
        assert!(std::time::Instant::now() < deadline, "both watchers join the run");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let api = server.api.clone();
    let stopped = server.stop().await;
    assert_eq!(stopped.interrupted.iter().map(ToString::to_string).collect::<Vec<_>>(), vec![id.clone()]);
    assert!(stopped.drained, "every request ended in time");
    let seen = reader.await.unwrap();
    assert_eq!(seen.last().unwrap().event, "interrupted");
    let summary = api.run_summary(&run_id).await.unwrap();
    assert_eq!(summary.status.as_str(), "running", "interrupted, not ended: resumable");
    assert!(!api.is_live(&run_id));

    // In batches, the last batch says it, and its id — as `interrupted`'s — is the
    // last stored event, where a reconnecting client's Last-Event-ID must point.
    let batches = batch_reader.await.unwrap();
    assert_batches(&batches);
    let last = batches.last().unwrap();
    assert_eq!(last.data["end"], json!("interrupted"));
    let stored = api.run_events(&run_id, None).await.unwrap().len() as u64;
    match last.data["lost_from"].as_u64() {
        Some(lost_from) => {
            assert_eq!(lost_from, stored, "events from lost_from on were never stored");
            assert_eq!(last.id, (lost_from - 1).to_string(), "its id is the last stored event");
            assert_eq!(seen.last().unwrap().id, last.id, "as the one-per-event form's interrupted says");
        }
        None => assert!(event_seqs(&batch_events(&batches)).iter().all(|seq| *seq < stored), "nothing was lost"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_names_the_batches_parameter() {
    // Generated clients and the API conformance suite know the route by its document.
    let server = TestServer::start().await;
    let document = server.get("/openapi.json").await.json;
    let parameters = document["paths"]["/runs/{id}/events"]["get"]["parameters"].as_array().expect("the route's parameters").clone();
    let batches = parameters.iter().find(|p| p["name"] == json!("batches")).unwrap_or_else(|| panic!("no batches in {parameters:?}"));
    assert_eq!(batches["in"], json!("query"));
    assert_eq!(batches["schema"]["type"], json!("boolean"));
    assert_ne!(batches["required"], json!(true), "without it, the stream is one message per event");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seq_larger_than_any_event_s_is_refused_as_the_document_says() {
    // Seqs are stored as signed 64-bit numbers; the OpenAPI document's `after` stops there.
    let server = TestServer::start().await;
    server.get("/runs/run-nope/events?after=9223372036854775808").await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let answer = server.get("/runs/run-nope/events?after=9223372036854775807").await;
    answer.assert_error(StatusCode::NOT_FOUND, "not_found");
}
