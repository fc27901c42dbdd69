//! `crewgraph`: Crewgraph without the window. See `crewgraph --help`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("crewgraph: {error:#}");
            ExitCode::from(2)
        }
    }
}
