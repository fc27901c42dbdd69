//! A database that cannot be used (issue 3, "Bad input"; DESIGN.md §11): locked by
//! another program, corrupt, not Crewgraph's, in a place that cannot be written. Each
//! gets a clear message on stderr and exit 1, promptly — and the file is left as it was.

use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::e2e::{assert_contiguous, example, instant, kind, now, parse, remaining, run_id, script, slow, Sandbox};

/// The store waits this long for another program's lock (StoreOptions' default is
/// 5 s); a command that waits much longer than this is hanging, not waiting.
const BUSY_LIMIT: Duration = Duration::from_secs(30);

/// The exam crew's shipped script.
fn exam_script() -> String {
    crate::support::repo_root().join("crews/scripts/exam.yaml").display().to_string()
}

/// Another program holding the write lock: `BEGIN IMMEDIATE` on its own connection.
fn hold_write_lock(sandbox: &Sandbox) -> Connection {
    let conn = Connection::open(sandbox.db()).expect("the test opens the database");
    conn.execute_batch("BEGIN IMMEDIATE").expect("the test takes the write lock");
    conn
}

/// Asserts a refusal: exit 1, no events, stderr says every one of `what`.
fn assert_refused(run: &crate::support::Run, what: &[&str]) {
    assert_eq!(run.code, 1, "refused with exit 1: {run:?}");
    assert!(run.stdout.is_empty(), "nothing printed: {}", run.stdout);
    for words in what {
        assert!(run.stderr.contains(words), "stderr says {words:?}: {}", run.stderr);
    }
}

#[test]
fn a_database_locked_by_another_program_fails_the_run_promptly_with_busy() {
    let sandbox = Sandbox::new();
    // A database with one finished run in it.
    let first = sandbox.cg(&["run", &example("exam.yaml"), "--input", "Go", "--script", &exam_script()]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let lock = hold_write_lock(&sandbox);

    let started = Instant::now();
    let run = sandbox.cg(&["run", &example("exam.yaml"), "--input", "Again", "--script", &exam_script(), "--json"]);
    let waited = started.elapsed();
    assert_refused(&run, &["database is busy", sandbox.db().to_str().unwrap()]);
    assert!(waited < BUSY_LIMIT, "gave up within the busy timeout, not after {waited:?}");

    // Reading needs no write lock (WAL): the runs can still be listed while it is held.
    assert_eq!(sandbox.runs().len(), 1, "listing works beside another program's write");
    drop(lock);
    let runs = sandbox.runs();
    assert_eq!(runs.len(), 1, "the refused run left nothing half-made: {runs:?}");
    assert_eq!(runs[0]["input"], "Go");
}

#[test]
fn a_database_locked_mid_run_fails_the_run_keeps_its_steps_and_it_resumes_later() {
    let sandbox = Sandbox::new();
    let replies = vec![
        ("researcher", vec![now("Five facts about city bees, with sources. [NOTES_READY]")]),
        ("writer", vec![slow("Draft 1: Bees in the city ... [DRAFT_READY]", 3_000)]),
        ("editor", vec![slow("Edited draft 1. [EDITED]", 3_000)]),
        ("judge", vec![now("Clear, and every fact is backed. [APPROVED]")]),
    ];
    let path = sandbox.write("script.yaml", &script(&replies));
    let mut child = sandbox.spawn(&["run", &example("research-loop.yaml"), "--input", "Go", "--script", path.to_str().unwrap(), "--json"]);
    // The researcher's step is stored; the writer and the editor take 3 s each, so a
    // step of theirs finds the lock taken.
    child.read_until(|l| kind(l) == "handoff");
    let lock = hold_write_lock(&sandbox);
    let started = Instant::now();
    let (status, stderr) = child.finish();
    assert!(started.elapsed() < BUSY_LIMIT, "gave up within the busy timeout");
    assert_eq!(status.code(), Some(1), "a run that cannot store its step stops with exit 1: {stderr}");
    assert!(stderr.contains("database is busy"), "{stderr}");
    drop(lock);

    // What it printed is stored; it never printed the step it could not store.
    let id = run_id(&child.printed[0]);
    let stored = sandbox.replay(&id);
    assert_eq!(stored, child.printed);
    assert_eq!(sandbox.status(&id), "running", "interrupted, not lost: it can be resumed");
    sandbox.assert_database_is_sound();

    let rest = sandbox.write("rest.yaml", &script(&instant(&remaining(&replies, &stored))));
    let resumed = sandbox.cg(&["resume", &id, "--script", rest.to_str().unwrap(), "--json"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let all = sandbox.replay(&id);
    assert_contiguous(&all, "a run resumed after a lock");
    assert_eq!(parse(all.last().unwrap())["status"], "terminated");
}

/// Bytes that are not a SQLite file (a fixed pseudo-random sequence).
fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn a_corrupt_database_file_is_a_clear_error_and_is_left_untouched() {
    let sandbox = Sandbox::new();
    let bytes = noise(16 * 1024);
    std::fs::write(sandbox.db(), &bytes).unwrap();
    let db = sandbox.db().display().to_string();
    let commands: [&[&str]; 4] = [
        &["runs"],
        &["replay", "run-1", "--json"],
        &["run", &example("exam.yaml"), "--input", "Go", "--script", &exam_script(), "--json"],
        &["resume", "run-1", "--input", "x", "--script", &exam_script()],
    ];
    for args in commands {
        let run = sandbox.cg(args);
        assert_refused(&run, &["damaged or is not a", &db]);
    }
    // The user's file may be something that matters: Crewgraph never writes over it.
    assert!(std::fs::read(sandbox.db()).unwrap() == bytes, "the file is unchanged");
}

#[test]
fn another_programs_sqlite_database_is_refused_and_left_untouched() {
    let sandbox = Sandbox::new();
    {
        let conn = Connection::open(sandbox.db()).unwrap();
        conn.execute_batch("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);").unwrap();
    }
    let bytes = std::fs::read(sandbox.db()).unwrap();
    let run = sandbox.cg(&["run", &example("exam.yaml"), "--input", "Go", "--script", &exam_script()]);
    assert_refused(&run, &["not a Crewgraph database"]);
    assert_refused(&sandbox.cg(&["runs"]), &["not a Crewgraph database"]);
    assert!(std::fs::read(sandbox.db()).unwrap() == bytes, "the file is unchanged, not even switched to WAL");
}

#[test]
fn a_database_in_a_place_that_cannot_be_written_is_a_clear_error() {
    let sandbox = Sandbox::new();
    // /proc refuses new files to everyone, root included.
    for db in ["/proc/self/crewgraph.db", "/proc/crewgraph-test/crewgraph.db"] {
        let args = ["run", &example("exam.yaml"), "--input", "Go", "--script", &exam_script(), "--db", db];
        let run = crate::e2e::cg_in(sandbox.dir.path(), &args);
        assert_refused(&run, &["could not be written", db]);
    }
    // A folder without write permission (root may write anywhere, so only as a user).
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        let locked = sandbox.path("read-only");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        let db = locked.join("crewgraph.db");
        let args = ["runs", "--db", db.to_str().unwrap()];
        let run = crate::e2e::cg_in(sandbox.dir.path(), &args);
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_refused(&run, &["could not be written", db.to_str().unwrap()]);
    }
}

#[test]
fn a_database_path_under_a_regular_file_is_a_clear_error() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("notes.txt", "not a folder");
    let db = file.join("crewgraph.db");
    let db = db.to_str().unwrap();
    for args in [vec!["runs", "--db", db], vec!["run", &example("exam.yaml"), "--input", "Go", "--script", &exam_script(), "--db", db]] {
        let run = crate::e2e::cg_in(sandbox.dir.path(), &args);
        assert_refused(&run, &[db, "notes.txt", "is a file, not a folder"]);
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder", "the file is left as it was");
}

#[test]
fn crewgraph_db_in_the_environment_chooses_the_database() {
    let sandbox = Sandbox::new();
    let db = sandbox.path("from-env.db");
    let run = crewgraph_with_env(&db, &["run", &example("exam.yaml"), "--input", "Go", "--script", &exam_script(), "--json"]);
    assert_eq!(run.status.code(), Some(0));
    let listed = crewgraph_with_env(&db, &["runs", "--json"]);
    let runs: Vec<serde_json::Value> = String::from_utf8(listed.stdout).unwrap().lines().map(parse).collect();
    assert_eq!(runs.len(), 1, "the run went to $CREWGRAPH_DB");
    assert!(db.is_file());
    assert!(!sandbox.db().exists(), "and nowhere else");
}

fn crewgraph_with_env(db: &std::path::Path, args: &[&str]) -> std::process::Output {
    crate::support::crewgraph()
        .current_dir(crate::support::repo_root())
        .env("CREWGRAPH_DB", db)
        .args(args)
        .timeout(crate::e2e::COMMAND_LIMIT)
        .output()
        .unwrap()
}

/// Regression: `runs` and `replay` only read, yet created the database file (and its
/// folder) when it did not exist.
#[test]
fn reading_commands_never_create_a_database() {
    let sandbox = Sandbox::new();
    let db = sandbox.path("not-yet/crewgraph.db");
    let db_arg = db.display().to_string();
    let runs = crate::e2e::cg_in(&crate::support::repo_root(), &["runs", "--db", &db_arg]);
    assert_eq!(runs.code, 0, "no database is no runs: {runs:?}");
    assert!(runs.stdout.contains("No runs yet"), "{}", runs.stdout);
    let replay = crate::e2e::cg_in(&crate::support::repo_root(), &["replay", "run-1", "--db", &db_arg]);
    assert_eq!(replay.code, 1, "{replay:?}");
    assert!(replay.stderr.contains("there is no run 'run-1'"), "{}", replay.stderr);
    assert!(!db.exists() && !db.parent().unwrap().exists(), "nothing was created");
}
