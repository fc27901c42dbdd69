//! `crewgraph`: Crewgraph without the window. See `crewgraph --help`.

mod cli;

/// mimalloc: the run loop allocates many small, short-lived values across threads,
/// where it is measurably faster than the system allocator (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("crewgraph: {}", cli::terminal::safe(&format!("{error:#}")));
            ExitCode::from(2)
        }
    }
}
