//! A traced leg through an [`Exporter`] to a collector on loopback (a minimal
//! OTLP/HTTP receiver that keeps each request's body): the spans arrive, a leg cut
//! short still ends its spans, and a collector that does not answer never makes
//! the run's thread wait — what it cost is counted.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crewgraph_engine::run::{EventKind, EventSink, NullSink, RunEvent, RunStatus};
use crewgraph_engine::AgentId;
use crewgraph_otel::{span_id_of, ExportConfig, Exporter, TracedSink};

use crate::spans::{at, exam, facts};

/// A collector on loopback: the request bodies it took.
struct Collector {
    address: SocketAddr,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Collector {
    /// One that answers every request with success (an empty protobuf answer).
    fn taking() -> Collector {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = bodies.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut stream = stream;
                    // Requests on a kept-alive connection, one after another.
                    loop {
                        let mut length = None;
                        loop {
                            let mut line = String::new();
                            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                                return;
                            }
                            if line == "\r\n" {
                                break;
                            }
                            if let Some((name, value)) = line.split_once(':') {
                                if name.eq_ignore_ascii_case("content-length") {
                                    length = value.trim().parse::<usize>().ok();
                                }
                            }
                        }
                        let mut body = vec![0; length.unwrap_or(0)];
                        reader.read_exact(&mut body).unwrap();
                        kept.lock().unwrap().push(body);
                        let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
                        stream.write_all(answer.as_bytes()).unwrap();
                    }
                });
            }
        });
        Collector { address, bodies }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Whether span `seq` of run `run_id` came (its id's bytes are in a request).
    fn has_span(&self, run_id: &str, seq: u64) -> bool {
        let id = span_id_of(run_id, seq).to_bytes();
        self.bodies.lock().unwrap().iter().any(|body| body.windows(id.len()).any(|w| w == id))
    }
}

#[test]
fn a_traced_leg_reaches_the_collector_as_its_spans() {
    let collector = Collector::taking();
    let exporter = Exporter::start(&ExportConfig::new(collector.url())).unwrap();
    let sink = TracedSink::new(Arc::new(NullSink), exporter.clone(), &facts(), false);
    let events = exam();
    for event in &events {
        sink.emit(event);
    }
    // Handed on when the step is stored, not only when the sink goes.
    sink.committed_events(events);
    assert!(exporter.flush(Duration::from_secs(10)), "flushed in time");
    let stats = exporter.stats();
    assert_eq!((stats.exported, stats.dropped, stats.dropped_events, stats.failed), (4, 0, 0, 0), "the run, two turns, a tool call");
    // The run's span (opened by event 0), the teacher's turn (1), its tool call (2),
    // the student's turn (7): ids from the run id and the opening event's seq.
    for seq in [0, 1, 2, 7] {
        assert!(collector.has_span("run-7", seq), "span of event {seq} sent");
    }
    drop(sink);
    assert!(exporter.flush(Duration::from_secs(10)));
    assert_eq!(exporter.stats().exported, 4, "a finished leg leaves nothing to end");
}

#[test]
fn a_leg_cut_short_ends_its_open_spans_when_its_sink_goes() {
    let collector = Collector::taking();
    let exporter = Exporter::start(&ExportConfig::new(collector.url())).unwrap();
    let sink = TracedSink::new(Arc::new(NullSink), exporter.clone(), &facts(), false);
    // Started and stored, a turn stored — then one more begun, never stored, and
    // the host stops the leg: no run_finished.
    let mut events = exam().into_iter();
    let (started, turn, unstored) = (events.next().unwrap(), events.next().unwrap(), events.next().unwrap());
    for event in [&started, &turn, &unstored] {
        sink.emit(event);
    }
    sink.committed_events(vec![started]);
    sink.committed_events(vec![turn]);
    assert!(exporter.flush(Duration::from_secs(10)));
    assert_eq!(exporter.stats().exported, 0, "nothing is finished while the leg goes on");
    drop(sink);
    assert!(exporter.flush(Duration::from_secs(10)));
    assert_eq!(exporter.stats().exported, 2, "the run and the turn, ended where the leg stood");
    assert!(collector.has_span("run-7", 0) && collector.has_span("run-7", 1));
    assert!(!collector.has_span("run-7", unstored.seq), "what the store does not hold, the trace does not either");
}

#[test]
fn a_collector_that_does_not_answer_never_makes_the_run_wait_and_what_is_lost_is_counted() {
    // Takes connections (the kernel's backlog) and never answers them.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut config = ExportConfig::new(format!("http://{}", silent.local_addr().unwrap()));
    // Waiting for it even once would take a minute.
    config.timeout = Duration::from_secs(60);
    config.delay = Duration::from_millis(1);
    config.queue = 512;
    let exporter = Exporter::start(&config).unwrap();
    let teacher = AgentId::from("teacher");
    let leg = |n: usize| {
        let run = at(vec![
            (0, EventKind::RunStarted { crew: "Exam".into(), input: "go".into() }),
            (1, EventKind::AgentStarted { agent: teacher.clone(), step: 1 }),
            (2, EventKind::AgentResponse { agent: teacher.clone(), content: "done [END]".into(), usage: None }),
            (3, EventKind::RunFinished { status: RunStatus::Terminated, final_agent: None, error: None, handoffs: 0, steps: 1 }),
        ]);
        run.into_iter().map(move |e| RunEvent { run_id: format!("run-{n}").as_str().into(), ..e })
    };
    let started = Instant::now();
    for n in 0..2000 {
        let sink = TracedSink::new(Arc::new(NullSink), exporter.clone(), &facts(), false);
        let events: Vec<RunEvent> = leg(n).collect();
        for event in &events {
            sink.emit(event);
        }
        sink.committed_events(events);
    }
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "4,000 spans' events put in the queue in {took:?}, never waiting for the collector");
    // Batches of 512 spans: one being sent, one waiting; the rest dropped.
    let deadline = Instant::now() + Duration::from_secs(60);
    while exporter.stats().dropped == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let stats = exporter.stats();
    assert!(stats.dropped > 0, "spans the collector had no room for: {stats:?}");
    assert_eq!(stats.exported, 0, "{stats:?}");
    drop(silent);
}
