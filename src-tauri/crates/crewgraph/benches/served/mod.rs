//! What the server benchmarks share: the real `crewgraph serve` binary on a free
//! loopback port over a crews folder and a database, its address once it says it
//! listens.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Starts `crewgraph serve` over `crews` and the database `db`, with `extra`
/// arguments; the child and the address it listens on (`http://…`).
pub fn serve(crews: &Path, db: &Path, extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crewgraph"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(extra)
        .arg("--db")
        .arg(db)
        .arg("--crews")
        .arg(crews)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("crewgraph serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("it says where it listens");
    let base = line.trim().strip_prefix("crewgraph serve: listening on ").expect("the listening line").to_owned();
    (child, base)
}
