//! The engine's overhead per handoff: a run of 100 handoffs between two agents whose
//! (scripted) replies are instant, so all the time is Crewgraph's own — calling the
//! agent, matching its signal, deciding, writing the step — with the in-memory
//! store and with every step persisted to a SQLite file. Divide by 100 for the
//! time per handoff. And a fork of such a run at its last reply: its 100 handoffs
//! replayed from the stored run by a model client that fails when asked (so no
//! model is called), per replayed step ≤ 1 ms being issue 18's bound. And the
//! in-memory run traced (`traced_in_memory`): its events made into OpenTelemetry
//! spans and sent over OTLP/HTTP to a receiver on loopback that takes them, against
//! `in_memory` untraced — issue 19's bound is ≤ 10 % slower. `make bench`; figures
//! in BENCHMARKS.md.

mod common;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;

use async_trait::async_trait;
use crewgraph_engine::run::{
    start_run, CrewSource, Fork, ForkPoint, LlmClient, LlmError, LlmReply, LlmRequest, MemoryStore, NullSink, Replay, Replaying, Role,
    RunStatus, RunStore, TokenSink,
};
use crewgraph_store::SqliteStore;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tokio_util::sync::CancellationToken;

const HANDOFFS: usize = 100;

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let crew = common::ping_pong(HANDOFFS as u32 + 2);
    let script = common::script(HANDOFFS, 240, 0);
    let source = CrewSource::default();
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite: Arc<dyn RunStore> = Arc::new(SqliteStore::open(dir.path().join("bench.db")).expect("open the store"));

    let mut group = c.benchmark_group("run_of_100_handoffs");
    group.throughput(Throughput::Elements(HANDOFFS as u64));
    let run = |store: Arc<dyn RunStore>| {
        let deps = common::deps(&script, store.clone());
        let (crew, source) = (&crew, &source);
        async move {
            let outcome = start_run(crew, source, "go", &deps, &CancellationToken::new()).await.expect("runs");
            assert_eq!((outcome.status, outcome.handoffs as usize), (RunStatus::Terminated, HANDOFFS));
            store
        }
    };
    // A fresh in-memory store per run (made outside the timing), so the measure is
    // the run, not a store growing with every iteration.
    group.bench_function("in_memory", |b| {
        b.to_async(&runtime).iter_batched(|| Arc::new(MemoryStore::new()) as Arc<dyn RunStore>, run, BatchSize::SmallInput)
    });
    // Traced: every event also folded into spans, sent to a receiver on loopback.
    let receiver = runtime.block_on(otlp_receiver());
    let exporter = crewgraph_otel::Exporter::start(&crewgraph_otel::ExportConfig::new(format!("http://{receiver}"))).expect("exporter");
    // The crew as a host describes it (api/traces.rs): each agent's model and provider.
    let agent = |id: &str| crewgraph_otel::AgentFacts {
        id: id.into(),
        name: id.into(),
        model: "scripted".into(),
        provider: "crewgraph.scripted".into(),
    };
    let facts = crewgraph_otel::CrewFacts { name: "Ping pong".into(), agents: vec![agent("a"), agent("b")] };
    group.bench_function("traced_in_memory", |b| {
        b.to_async(&runtime).iter_batched(
            || Arc::new(MemoryStore::new()) as Arc<dyn RunStore>,
            |store| {
                let sink = Arc::new(crewgraph_otel::TracedSink::new(Arc::new(NullSink), exporter.clone(), &facts, false));
                let deps = common::deps_with_sink(&script, store, sink);
                let (crew, source) = (&crew, &source);
                async move {
                    let outcome = start_run(crew, source, "go", &deps, &CancellationToken::new()).await.expect("runs");
                    assert_eq!((outcome.status, outcome.handoffs as usize), (RunStatus::Terminated, HANDOFFS));
                }
            },
            BatchSize::SmallInput,
        )
    });
    exporter.flush(std::time::Duration::from_secs(10));
    // Spans made faster than a collector takes them are dropped (counted), never waited for.
    let stats = exporter.stats();
    println!(
        "traced_in_memory: spans exported {}, dropped {}, failed {}; run events dropped {}",
        stats.exported, stats.dropped, stats.failed, stats.dropped_events
    );
    // One SQLite file for all runs, as in use.
    group.bench_function("sqlite_file", |b| b.to_async(&runtime).iter(|| run(sqlite.clone())));
    group.finish();
}

/// An OTLP/HTTP receiver on loopback that takes every request (an empty
/// protobuf answer is a full success); its address.
async fn otlp_receiver() -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let app = axum::Router::new().route("/v1/traces", axum::routing::post(|_: axum::body::Bytes| async { "" }));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the receiver runs") });
    address
}

/// A model that is never to be asked: a fork's replayed part calls none.
struct NoModel;

#[async_trait]
impl LlmClient for NoModel {
    async fn complete(&self, _: &LlmRequest<'_>, _: TokenSink<'_>, _: &CancellationToken) -> Result<LlmReply, LlmError> {
        Err(LlmError::Failed("a fork's replayed part asked a model".into()))
    }
}

fn fork(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let crew = common::ping_pong(HANDOFFS as u32 + 2);
    let script = common::script(HANDOFFS, 240, 0);
    let source = CrewSource::default();
    let stored: Arc<dyn RunStore> = Arc::new(MemoryStore::new());
    let first = runtime
        .block_on(start_run(&crew, &source, "go", &common::deps(&script, stored.clone()), &CancellationToken::new()))
        .expect("the first run");
    let history = runtime.block_on(stored.load_run(&first.run_id)).expect("read").expect("stored").history;
    let at = history.iter().rposition(|m| m.role == Role::Agent).expect("a reply");
    let last = history[at].content.clone();

    let mut group = c.benchmark_group("fork_replaying_100_handoffs");
    group.throughput(Throughput::Elements(HANDOFFS as u64));
    group.bench_function("in_memory", |b| {
        b.to_async(&runtime).iter_batched(
            || Arc::new(MemoryStore::new()) as Arc<dyn RunStore>,
            |store| {
                let replay = Arc::new(Replay::of(&history, at, &last));
                let mut deps = common::deps(&script, store);
                deps.llm = Arc::new(Replaying { replay: replay.clone(), then: Arc::new(NoModel) });
                deps.fork = Some(Fork { from: ForkPoint { run_id: first.run_id.clone(), seq: 0 }, replay });
                let (crew, source) = (&crew, &source);
                async move {
                    let outcome = start_run(crew, source, "go", &deps, &CancellationToken::new()).await.expect("forks");
                    assert_eq!((outcome.status, outcome.handoffs as usize), (RunStatus::Terminated, HANDOFFS), "{:?}", outcome.error);
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench, fork);
criterion_main!(benches);
