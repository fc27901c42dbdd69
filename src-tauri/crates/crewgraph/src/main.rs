//! `crewgraph`: Crewgraph without the window. See `crewgraph --help`.
//!
//! What it says to the person at the terminal is its output (`say!` and `tell!`
//! in `cli::terminal`); diagnostics are `tracing` events, written to stderr by the
//! subscriber [`diagnostics`] sets up: Crewgraph's own warnings and errors, or
//! what `RUST_LOG` asks for (`RUST_LOG=crewgraph=debug`, `RUST_LOG=debug`).

mod cli;

/// mimalloc: the run loop allocates many small, short-lived values across threads,
/// where it is measurably faster than the system allocator (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::filter::{EnvFilter, LevelFilter};

fn main() -> ExitCode {
    diagnostics();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(error) => {
            cli::terminal::tell!("crewgraph: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Writes `tracing` events to stderr: those `RUST_LOG` selects, else Crewgraph's
/// own warnings and errors (its libraries' targets all start with `crewgraph`;
/// other crates' events stay silent, so the CLI's output is as it was).
fn diagnostics() {
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => {
            EnvFilter::builder().with_default_directive(LevelFilter::ERROR.into()).parse_lossy(directives)
        }
        _ => EnvFilter::new("crewgraph=warn"),
    };
    let stderr = std::io::stderr();
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(stderr.is_terminal()).try_init();
}
