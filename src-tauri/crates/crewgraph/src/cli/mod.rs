//! The command line: arguments (clap) and one file per command. Output shapes and
//! exit codes are contracts (DESIGN.md §10): `validate` prints one error per line as
//! `FILE:LINE:COL: message` and exits 1 when there are errors; `match` prints the
//! level and exits 0 when it matched, 1 when not. Usage errors exit 2.

mod match_cmd;
mod validate;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Crewgraph designs, runs and watches crews of LLM agents. This is its command
/// line: check crew files and try out signal matching without opening the window.
#[derive(Debug, Parser)]
#[command(name = "crewgraph", version, about, long_about = None, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

const EXAMPLES: &str = "\
Examples:
  crewgraph validate crews/exam.yaml           check one crew file
  crewgraph validate crews/*.yaml crews/go-quiz check several (a folder with crew.yaml counts as one crew)
  crewgraph match --signal '[END]' --content 'All done [end]'
                                               prints: case_insensitive";

#[derive(Debug, Subcommand)]
enum Command {
    /// Check crew files for mistakes. Prints one error per line as FILE:LINE:COL: message
    /// (warnings go to stderr) and exits 1 if any file has an error.
    Validate {
        /// Crew files (.yaml) or crew folders (holding crew.yaml and agents/).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Check whether a reply contains a signal, and how closely: prints exact,
    /// case_insensitive, normalized or none. Exits 0 when it matched, 1 when not.
    #[command(after_help = MATCH_EXAMPLES)]
    Match {
        /// The signal to look for, in brackets: '[END]'.
        #[arg(long, required_unless_present = "json", conflicts_with = "json", requires = "content")]
        signal: Option<String>,
        /// The reply to look in.
        #[arg(long)]
        content: Option<String>,
        /// Read a JSON list of {"signal", "content"} cases from stdin and print a JSON
        /// list of {"matched", "level"} answers, one per case.
        #[arg(long)]
        json: bool,
    },
}

const MATCH_EXAMPLES: &str = "\
Examples:
  crewgraph match --signal '[KẾT_THÚC]' --content 'Xong [ Kết Thúc ]'   prints: normalized
  echo '[{\"signal\":\"[END]\",\"content\":\"[END]\"}]' | crewgraph match --json
                                                            prints: [{\"matched\":true,\"level\":\"exact\"}]";

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Validate { files } => Ok(validate::run(&files)),
        Command::Match { json: true, .. } => match_cmd::run_json(std::io::stdin().lock()),
        Command::Match { signal, content, .. } => {
            Ok(match_cmd::run_one(&signal.unwrap_or_default(), &content.unwrap_or_default()))
        }
    }
}
