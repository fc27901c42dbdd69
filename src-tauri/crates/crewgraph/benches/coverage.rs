//! Route coverage's speed: `crewgraph test` on each example crew without probes —
//! one Simulate run per arrow, planned and run with the scripted model, no model
//! called. Two measures per crew: the whole command as a person runs it (a process
//! started, the crew loaded, every scenario run, the table printed), and the API call
//! inside it (`Api::test_crew`). Target: ≤ 1 s per crew for the command (issue 18).
//! `make bench`; figures in BENCHMARKS.md.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::process::Command;

use crewgraph::api::Api;
use criterion::{criterion_group, criterion_main, Criterion};

/// The repository root (where `crews/` is).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().expect("the repository")
}

/// The example crews: `crews/*.yaml` and the crew folders.
fn examples() -> Vec<String> {
    let mut crews: Vec<String> = std::fs::read_dir(root().join("crews"))
        .expect("crews/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") || p.join("crew.yaml").is_file())
        .map(|p| p.file_name().expect("a name").to_string_lossy().into_owned())
        .collect();
    crews.sort();
    crews
}

fn bench(c: &mut Criterion) {
    let root = root();
    let db = tempfile::tempdir().expect("a temp dir");
    let db = db.path().join("none.db");
    let binary = env!("CARGO_BIN_EXE_crewgraph");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    let api = Api::new(root.join("crews"));

    let mut command = c.benchmark_group("crewgraph_test");
    command.sample_size(10);
    for crew in examples() {
        let path = root.join("crews").join(&crew);
        command.bench_function(&crew, |b| {
            b.iter(|| {
                let out = Command::new(binary).current_dir(&root).arg("test").arg(&path).arg("--db").arg(&db).output().expect("runs");
                // 0, or 1 for the routers' crews (their arrow back to the entry point).
                assert!(matches!(out.status.code(), Some(0 | 1)), "{crew}: {}", String::from_utf8_lossy(&out.stderr));
            })
        });
    }
    command.finish();

    let mut inside = c.benchmark_group("test_crew");
    inside.sample_size(20);
    for crew in examples() {
        let path = root.join("crews").join(&crew);
        inside.bench_function(&crew, |b| b.iter(|| runtime.block_on(api.test_crew(&path, None, None)).expect("tests")));
    }
    inside.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
