//! The command line: arguments (clap) and one file per command. Output shapes and
//! exit codes are contracts (DESIGN.md §10): `validate` prints one error per line as
//! `FILE:LINE:COL: message` and exits 1 when there are errors; `match` prints the
//! level and exits 0 when it matched, 1 when not. Usage errors exit 2. Everything
//! printed goes through [`terminal`], so no control character from a crew file, a
//! model or a server acts on the terminal.

mod agents_cmd;
mod import_cmd;
mod match_cmd;
mod mcp_cmd;
mod models_cmd;
mod revisions_cmd;
mod run_cmd;
mod runs_cmd;
mod serve_cmd;
mod store;
pub(crate) mod terminal;
mod test_cmd;
mod transcript;
mod validate;
mod worker_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use crewgraph_engine::run::{Approvals, ToolDecision};
use terminal::tell;

/// Crewgraph designs, runs and watches crews of LLM agents. This is its command
/// line: check crew files, try out signal matching, and run crews without the window.
#[derive(Debug, Parser)]
#[command(name = "crewgraph", version, about, long_about = None, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

const EXAMPLES: &str = "\
Examples:
  crewgraph validate crews/exam.yaml           check one crew file
  crewgraph run crews/exam.yaml --input 'Start the exam' --script crews/scripts/exam.yaml
                                               simulate a run with scripted replies
  crewgraph runs                               the runs so far, with their status
  crewgraph test crews/exam.yaml               can a run take every arrow? (Simulate, no model)
  crewgraph revisions crews/exam.yaml          the crew's revisions, what changed in each, their runs
  crewgraph diff crews/exam.yaml 1 2           what changed from revision 1 to revision 2
  crewgraph validate crews/*.yaml crews/go-quiz check several (a folder with crew.yaml counts as one crew)
  crewgraph match --signal '[END]' --content 'All done [end]'
                                               prints: case_insensitive";

/// The tools `crewgraph import` reads projects of.
#[derive(Debug, Subcommand)]
enum ImportFrom {
    /// A CrewAI project: its config/agents.yaml and config/tasks.yaml (and crew.py,
    /// for Process.hierarchical and its manager) become one crew file. Sequential
    /// tasks become a chain of routes ending in End, human_input a Wait; a
    /// hierarchical crew gets the llm router with the manager as supervisor;
    /// {placeholders} are kept and listed as the run's inputs. See docs/import.md.
    #[command(after_help = IMPORT_EXAMPLES)]
    Crewai {
        /// The project's folder (config/ at its top or under src/<name>/), or its
        /// agents.yaml, tasks.yaml and crew.py.
        #[arg(required = true, value_name = "DIR_OR_FILES")]
        paths: Vec<PathBuf>,
        /// Write the crew file here (whole, or not at all) instead of printing it.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

const IMPORT_EXAMPLES: &str = "\
Examples:
  crewgraph import crewai ./latest_ai_development --out crews/latest-ai.yaml
  crewgraph import crewai config/agents.yaml config/tasks.yaml src/crew.py";

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
        #[arg(long, required_unless_present_any = ["json", "explain"], conflicts_with_all = ["json", "explain"], requires = "content")]
        signal: Option<String>,
        /// The reply to look in.
        #[arg(long)]
        content: Option<String>,
        /// Read a JSON list of {"signal", "content"} cases from stdin and print a JSON
        /// list of {"matched", "level"} answers, one per case.
        #[arg(long)]
        json: bool,
        /// Say why the reply (--content), as a reply of --agent in --crew, routes or
        /// does not, and what came close: a misspelt signal, its words without
        /// brackets, another agent's signal. Exit 0 when it routes, 1 when not.
        #[arg(long, requires_all = ["crew", "agent", "content"], conflicts_with = "json")]
        explain: bool,
        /// With --explain: the crew file or folder.
        #[arg(long, value_name = "FILE", requires = "explain")]
        crew: Option<PathBuf>,
        /// With --explain: whose reply it is.
        #[arg(long, value_name = "ID", requires = "explain")]
        agent: Option<String>,
    },
    /// Run a crew on an input and print what happens: who worked, what they said, who
    /// handed to whom and why. Exits 0 unless the run failed. Ctrl-C stops the run.
    Run {
        /// The crew file or crew folder.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// What the crew is asked to do.
        #[arg(long)]
        input: String,
        /// Under the scoring strategy: the agent you ask for; it gets the work when it
        /// is one of the specialists (otherwise the scores decide).
        #[arg(long, value_name = "ID")]
        agent: Option<String>,
        /// Pause before each turn of this agent (repeat it for more): the run waits
        /// until `crewgraph resume` (`--step` for one turn at a time).
        #[arg(long, value_name = "ID")]
        break_before: Vec<String>,
        #[command(flatten)]
        run: RunFlags,
    },
    /// Go on with a paused run, giving it your answer (or with a run that was
    /// interrupted, from its last stored step).
    Resume {
        /// The run's id (see `crewgraph runs`).
        #[arg(value_name = "RUN_ID")]
        run_id: String,
        /// Your answer to the crew (needed for a run waiting for one; before an agent's
        /// turn, words it sees first).
        #[arg(long)]
        input: Option<String>,
        /// Go on for one turn, then pause before the next, whoever has it.
        #[arg(long)]
        step: bool,
        /// From now on pause before each turn of these agents instead (repeat it).
        #[arg(long, value_name = "ID", conflicts_with = "no_breaks")]
        break_before: Vec<String>,
        /// From now on pause before no agent.
        #[arg(long)]
        no_breaks: bool,
        #[command(flatten)]
        run: RunFlags,
    },
    /// Fork a stored run at one of its replies: a new run of the same crew on the
    /// same input whose turns before that reply are given again from the stored run
    /// (no model asked, no tool called again), with your reply in its place; the rest
    /// runs on the agents' models, or in Simulate with --script. The seqs are those
    /// of `crewgraph replay RUN --json` (its `agent_response` events).
    Fork {
        /// The stored run's id (see `crewgraph runs`).
        #[arg(value_name = "RUN_ID")]
        run_id: String,
        /// The seq of the reply to replace.
        #[arg(long, value_name = "SEQ")]
        at: u64,
        /// What the agent says there instead.
        #[arg(long, value_name = "TEXT")]
        reply: String,
        /// Fork on the version of the crew the run ran (when the file changed since).
        #[arg(long)]
        on_revision: bool,
        #[command(flatten)]
        run: RunFlags,
    },
    /// Answer a tool call a paused run waits on (its transcript names the call): allow
    /// it once (the default), for the rest of the run, or deny it; the run goes on.
    Approve {
        /// The run's id (see `crewgraph runs`).
        #[arg(value_name = "RUN_ID")]
        run_id: String,
        /// The call, as the transcript names it (`call-4-0`).
        #[arg(value_name = "CALL_ID")]
        call_id: String,
        /// Allow this tool for the rest of the run, not only this call.
        #[arg(long, conflicts_with = "deny")]
        allow_run: bool,
        /// Do not allow the call: the agent is told so, and the run goes on.
        #[arg(long)]
        deny: bool,
        /// Why (told to the agent with a denial).
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        #[command(flatten)]
        run: RunFlags,
    },
    /// Route coverage: whether every arrow of a crew can be taken. Without probes,
    /// one Simulate run per arrow (scripted replies that take it, then finish; no
    /// model called) and, for an arrow no run can take, why. With probes (a YAML
    /// file of requests, each optionally with the final_agent or status expected),
    /// each request on a real model, and how often each arrow was taken, how often
    /// an agent's reply had none of its signals, loops, handoffs and cost per run.
    /// Exits 0 when every arrow was taken and every scenario (or expectation) held, 1
    /// otherwise.
    #[command(after_help = TEST_EXAMPLES)]
    Test {
        /// The crew file or crew folder.
        #[arg(value_name = "CREW")]
        crew: PathBuf,
        /// Run these requests on a real model instead of the Simulate scenarios.
        #[arg(long, value_name = "FILE")]
        probes: Option<PathBuf>,
        /// With --probes: the model every agent uses (a named model, provider/model, or
        /// local); otherwise each its own.
        #[arg(long, value_name = "M", requires = "probes")]
        model: Option<String>,
        /// The report as one JSON document instead of tables.
        #[arg(long)]
        json: bool,
        /// The database file holding models and runtime agents (default: crewgraph.db
        /// in your data folder, or $CREWGRAPH_DB). The test's own runs are not kept.
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// List the stored runs, newest first, with their status.
    Runs {
        /// One JSON object per line instead of a table.
        #[arg(long)]
        json: bool,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// Print a stored run's events again, as a transcript or as JSON lines.
    Replay {
        /// The run's id (see `crewgraph runs`).
        #[arg(value_name = "RUN_ID")]
        run_id: String,
        /// One JSON object per event and line.
        #[arg(long)]
        json: bool,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// What the agents of one step of a stored run were given: the exact
    /// instructions (with the signal paragraph), the messages shown, what the context
    /// window cut, and the tokens. The steps are the [N] of `crewgraph replay`.
    Context {
        /// The run's id (see `crewgraph runs`).
        #[arg(value_name = "RUN_ID")]
        run_id: String,
        /// The step.
        #[arg(long, value_name = "N")]
        step: u32,
        /// Only this agent's calls (a parallel group's step has several).
        #[arg(long, value_name = "ID")]
        agent: Option<String>,
        /// One JSON document instead of text.
        #[arg(long)]
        json: bool,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// A crew's history, newest first: each revision kept (every save in the window
    /// and every run keeps one), what changed since the one before in words, and its
    /// runs with their status and cost.
    Revisions {
        /// The crew file or crew folder.
        #[arg(value_name = "CREW")]
        crew: PathBuf,
        /// One JSON object per revision and line.
        #[arg(long)]
        json: bool,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// Compare two revisions of a crew (see `crewgraph revisions`): every change in
    /// words, and changed instructions as line diffs.
    Diff {
        /// The crew file or crew folder.
        #[arg(value_name = "CREW")]
        crew: PathBuf,
        /// The older revision's number.
        #[arg(value_name = "FROM")]
        from: u32,
        /// The newer revision's number.
        #[arg(value_name = "TO")]
        to: u32,
        /// The crew TO belongs to, if another (refused: only revisions of one crew compare).
        #[arg(long, value_name = "CREW")]
        to_crew: Option<PathBuf>,
        /// The whole comparison as one JSON object.
        #[arg(long)]
        json: bool,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// List the models agents can use and whether each answers (exits 1 when the
    /// default one does not); add, remove, or choose the default one.
    #[command(after_help = MODELS_EXAMPLES)]
    Models {
        #[command(subcommand)]
        action: Option<ModelsAction>,
        /// JSON instead of a table: one object per model (or server) and line.
        #[arg(long, global = true)]
        json: bool,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH", global = true)]
        db: Option<PathBuf>,
    },
    /// Where the scoring router would send a query: prints
    /// {"chosen": ID or "finalize", "candidates": [{"agent", "score"}], "tokens": [...]}.
    Route {
        /// The crew file or crew folder (its runtime agents count too).
        #[arg(long, value_name = "FILE")]
        crew: PathBuf,
        /// The request to route.
        #[arg(long)]
        query: String,
        /// An agent the person asked for: it wins when it is a candidate.
        #[arg(long, value_name = "ID")]
        agent: Option<String>,
        /// The database file holding runtime agents (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// Runtime agents: add an agent to a crew without editing its files (it is kept
    /// in the database and takes part in routing from the next decision), list them,
    /// remove them.
    Agents {
        #[command(subcommand)]
        action: AgentsAction,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH", global = true)]
        db: Option<PathBuf>,
    },
    /// Serve Crewgraph over HTTP: every operation as JSON, each run's events as
    /// server-sent events, the OpenAPI document at /openapi.json and the web UI at /,
    /// for a browser or many clients. Stops on SIGTERM or Ctrl-C, leaving the runs
    /// it was running resumable. See docs/serve.md.
    #[command(after_help = SERVE_EXAMPLES)]
    Serve {
        /// Where to listen (HOST:PORT; localhost is 127.0.0.1). Anything but loopback
        /// (127.0.0.1, ::1) needs --token.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878", value_parser = serve_cmd::parse_addr)]
        addr: std::net::SocketAddr,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
        /// Keep runs, settings and crew revisions in a PostgreSQL database shared with
        /// other machines instead of a file (postgres://USER@HOST:PORT/DATABASE); also
        /// read from $CREWGRAPH_STORE when no --db is given, which keeps a password out
        /// of the process list. See docs/scale-out.md.
        #[arg(long, value_name = "URL", conflicts_with = "db")]
        store: Option<String>,
        /// A token every API request must then carry (Authorization: Bearer T); also
        /// read from $CREWGRAPH_TOKEN, which keeps it out of the process list.
        #[arg(long, value_name = "T")]
        token: Option<String>,
        /// The crews folder: the only crews the server opens and runs.
        #[arg(long, value_name = "DIR", default_value = "crews")]
        crews: PathBuf,
        /// The built web UI to serve at / (default: ui/dist).
        #[arg(long, value_name = "DIR")]
        ui: Option<PathBuf>,
        /// The most connections one client address may hold at once (more are
        /// closed as they arrive).
        #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
        max_connections_per_client: u32,
        /// Hand the runs it is asked for to workers reading this Redis queue
        /// (redis://HOST:PORT) instead of executing them: an API node of a cluster
        /// (needs --store); also read from $CREWGRAPH_QUEUE. See docs/scale-out.md.
        #[arg(long, value_name = "URL")]
        queue: Option<String>,
        /// With --queue: how often to queue again the runs the store has as runnable
        /// and no queue entry names (lost by a crash or a Redis that lost its data).
        #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        sweep_every: u64,
    },
    /// Execute runs from a Redis queue, keeping them in a PostgreSQL database shared
    /// with the API nodes (crewgraph serve --queue … --store …). Stops on SIGTERM or
    /// Ctrl-C: each run finishes the step it is in and goes back to the queue. See
    /// docs/scale-out.md.
    #[command(after_help = WORKER_EXAMPLES)]
    Worker {
        /// The queue to take runs from (redis://HOST:PORT); also read from $CREWGRAPH_QUEUE.
        #[arg(long, value_name = "URL")]
        queue: Option<String>,
        /// The database the runs are kept in (postgres://USER@HOST:PORT/DATABASE);
        /// also read from $CREWGRAPH_STORE, which keeps a password out of the process list.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
        /// How many runs it executes at once.
        #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
        concurrency: u32,
        /// Its name among the workers (default: HOST:PID); unique per worker.
        #[arg(long, value_name = "NAME")]
        id: Option<String>,
        /// Answer GET /health on this address (HOST:PORT): 200 when the queue and
        /// the database answer, 503 otherwise.
        #[arg(long, value_name = "ADDR", value_parser = serve_cmd::parse_addr)]
        health: Option<std::net::SocketAddr>,
        /// The crews folder, at the same path as on the API nodes.
        #[arg(long, value_name = "DIR", default_value = "crews")]
        crews: PathBuf,
        /// How long a stop waits for runs to finish their step before dropping them
        /// where they stand (they are taken over once their leases run out).
        #[arg(long, value_name = "SECONDS", default_value_t = 30)]
        drain: u64,
        /// How long its hold on a run lasts unless renewed (it renews it every third
        /// of that while it runs): how soon others take over the runs of a worker that died.
        #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
        lease: u64,
    },
    /// The crews of a folder as MCP tools, over stdin/stdout: add this command to
    /// Claude Desktop, Cursor or VS Code and call a crew from there. Each crew that
    /// has no errors is a tool (input: what to work on; answer: the final agent's
    /// reply, the run id and its status); resume_run answers a crew that waits for
    /// you. See docs/serve.md.
    #[command(after_help = MCP_EXAMPLES)]
    Mcp {
        /// The crews folder: its crews are the tools.
        #[arg(long, value_name = "DIR", default_value = "crews")]
        crews: PathBuf,
        /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// Make a crew of another tool's project. Prints the crew file (or writes it to
    /// --out); what could not be carried over goes to stderr as
    /// FILE:LINE:COL: warning: message. Exits 1 when the project cannot be read.
    Import {
        #[command(subcommand)]
        from: ImportFrom,
    },
    /// API keys in the OS keyring: where each comes from, store one, remove one.
    /// Keys can also come from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY,
    /// CREWGRAPH_<NAME>_API_KEY); they are never written to crew files or the database.
    Keys {
        #[command(subcommand)]
        action: Option<KeysAction>,
    },
}

#[derive(Debug, Subcommand)]
enum ModelsAction {
    /// Add a model (or replace one of the same name).
    Add(models_cmd::NewModel),
    /// Remove a model.
    Remove { name: String },
    /// Make a model (or `local`) the default.
    Default { name: String },
    /// Ask a model (or `local`) what it can do: does it answer, its context window,
    /// streaming, tool calling, structured output, time to first token, tokens per
    /// second. The answer is kept with the model (exits 1 when it does not answer).
    Check { name: String },
    /// List the model servers running on this computer (Ollama, LM Studio, llama.cpp,
    /// vLLM, Jan, LocalAI) and their models.
    Discover {
        /// Look here instead (host:port, repeatable), for this time only.
        #[arg(long = "address", value_name = "HOST:PORT")]
        addresses: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
enum AgentsAction {
    /// Add the agent in FILE (one agent, as in a crew folder's agents/<id>.yaml) to a crew.
    Add {
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The crew file or crew folder.
        #[arg(long, value_name = "CREW")]
        crew: PathBuf,
    },
    /// List a crew's runtime agents.
    List {
        #[arg(long, value_name = "CREW")]
        crew: PathBuf,
        /// One JSON object per agent and line.
        #[arg(long)]
        json: bool,
    },
    /// Remove a runtime agent (the crew's own agents stay).
    Remove {
        #[arg(value_name = "ID")]
        id: String,
        #[arg(long, value_name = "CREW")]
        crew: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
enum KeysAction {
    /// Store a key in the keyring, read from stdin: crewgraph keys set openai < key.txt
    Set { name: String },
    /// Remove a key from the keyring.
    Remove { name: String },
}

const MODELS_EXAMPLES: &str = "\
Examples:
  crewgraph models                                          the models, and whether each answers
  crewgraph models add default --provider openai --model gpt-4o-mini
  crewgraph models add fast --provider openai --model llama3.2 --base-url http://localhost:11434/v1
  crewgraph models add smart --provider anthropic --model claude-sonnet-4-5 --default
  crewgraph models default local                            run everything on the built-in local model
  crewgraph models check fast                               what the model can do: window, tools, structured output, speed
  crewgraph models discover                                 the model servers running on this computer
With no model added, every agent runs on the built-in local model (SmolLM2-135M).";

/// The flags `run` and `resume` share.
#[derive(Debug, clap::Args)]
struct RunFlags {
    /// Take the agents' replies from this script instead of a model (Simulate mode):
    /// replies per agent, in order.
    #[arg(long, value_name = "REPLIES.yaml")]
    script: Option<PathBuf>,
    /// The model every agent uses instead of its own: a named model (default, fast …),
    /// provider/model, or local (see `crewgraph models`).
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// Print every event as one JSON line instead of a transcript.
    #[arg(long)]
    json: bool,
    /// The database file (default: crewgraph.db in your data folder, or $CREWGRAPH_DB).
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Answer the tool calls that ask for approval without asking you: all (allow
    /// every one), read-only (allow those its server marks read-only, deny the rest),
    /// none (deny every one). Without it, a terminal asks you; otherwise the run
    /// pauses at the call (answer it with `crewgraph approve`).
    #[arg(long, value_name = "WHICH")]
    approve_tools: Option<ApproveTools>,
}

/// `--approve-tools`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ApproveTools {
    All,
    ReadOnly,
    None,
}

impl RunFlags {
    fn into_args(self) -> run_cmd::RunArgs {
        let approvals = match self.approve_tools {
            None => None,
            Some(ApproveTools::All) => Some(Approvals::All),
            Some(ApproveTools::ReadOnly) => Some(Approvals::ReadOnly),
            Some(ApproveTools::None) => Some(Approvals::Nothing),
        };
        run_cmd::RunArgs {
            script: self.script,
            model: self.model,
            agent: None,
            json: self.json,
            db: self.db,
            approvals,
            breaks: None,
            step: false,
        }
    }
}

const TEST_EXAMPLES: &str = "\
Examples:
  crewgraph test crews/exam.yaml                        every arrow taken in Simulate? (no model called)
  crewgraph test crews/exam.yaml --json                 the same as one JSON document
  crewgraph test crews/exam.yaml --probes probes.yaml --model local
                                                        each probe on the local model
A probes file:
  probes:
    - Start the exam
    - input: Ask one question, then stop
      final_agent: teacher      # optional: who has the last word
      status: terminated        # optional: how the run ends
      repeat: 3                 # optional: run it 3 times";

const WORKER_EXAMPLES: &str = "\
Examples:
  crewgraph serve --queue redis://10.0.0.5:6379 --store postgres://crew@10.0.0.6/crewgraph
                                                     an API node: runs go to the workers
  crewgraph worker --queue redis://10.0.0.5:6379 --store postgres://crew@10.0.0.6/crewgraph \\
      --concurrency 200 --health 0.0.0.0:7879         a worker, 200 runs at once, its health on :7879
";

const SERVE_EXAMPLES: &str = "\
Examples:
  crewgraph serve                                    http://127.0.0.1:7878 on the crews in ./crews
  CREWGRAPH_TOKEN=$(openssl rand -hex 24) crewgraph serve --addr 0.0.0.0:7878
                                                     reachable from other machines, with a token
  curl -N localhost:7878/runs/RUN_ID/events          a run's events as they happen
  curl localhost:7878/v1/models                      the crews as OpenAI models (crew/<name>)
                                                     MCP clients: http://127.0.0.1:7878/mcp";

const MCP_EXAMPLES: &str = "\
Examples:
  crewgraph mcp --crews ~/crews                      the crews of ~/crews as tools
  Claude Desktop (claude_desktop_config.json):
    {\"mcpServers\": {\"crews\": {\"command\": \"crewgraph\", \"args\": [\"mcp\", \"--crews\", \"/home/me/crews\"]}}}
  A tool's input: {\"input\": \"Quiz me on Go\", \"model\": \"simulate\"}  (simulate: the crew's Simulate script)";

const MATCH_EXAMPLES: &str = "\
Examples:
  crewgraph match --signal '[KẾT_THÚC]' --content 'Xong [ Kết Thúc ]'   prints: normalized
  echo '[{\"signal\":\"[END]\",\"content\":\"[END]\"}]' | crewgraph match --json
                                                            prints: [{\"matched\":true,\"level\":\"exact\"}]";

/// Runs `future` to its end on a runtime of the calling thread (commands that make
/// a few API calls and return).
fn block_on<T>(future: impl std::future::Future<Output = T>) -> Result<T, String> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("cannot start: {e}"))?;
    Ok(runtime.block_on(future))
}

/// Says what went wrong on stderr; exit status 1.
fn fail(error: impl std::fmt::Display) -> ExitCode {
    tell!("crewgraph: {error}");
    ExitCode::FAILURE
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Validate { files } => Ok(validate::run(&files)),
        Command::Match { json: true, .. } => match_cmd::run_json(std::io::stdin().lock()),
        Command::Match { explain: true, crew, agent, content, .. } => {
            Ok(match_cmd::explain(&crew.unwrap_or_default(), &agent.unwrap_or_default(), &content.unwrap_or_default()))
        }
        Command::Match { signal, content, .. } => Ok(match_cmd::run_one(&signal.unwrap_or_default(), &content.unwrap_or_default())),
        Command::Run { file, input, agent, break_before, run } => {
            Ok(run_cmd::run(&file, &input, run_cmd::RunArgs { agent, breaks: Some(break_before), ..run.into_args() }))
        }
        Command::Resume { run_id, input, step, break_before, no_breaks, run } => {
            let breaks = if no_breaks { Some(Vec::new()) } else { Some(break_before).filter(|b| !b.is_empty()) };
            Ok(run_cmd::resume(&run_id, input.as_deref(), run_cmd::RunArgs { breaks, step, ..run.into_args() }))
        }
        Command::Fork { run_id, at, reply, on_revision, run } => Ok(run_cmd::fork(&run_id, at, &reply, on_revision, run.into_args())),
        Command::Approve { run_id, call_id, allow_run, deny, reason, run } => {
            let decision = match (allow_run, deny) {
                (_, true) => ToolDecision::Deny,
                (true, false) => ToolDecision::AllowRun,
                (false, false) => ToolDecision::AllowOnce,
            };
            Ok(run_cmd::approve(&run_id, &call_id, decision, reason.as_deref(), run.into_args()))
        }
        Command::Test { crew, probes, model, json, db } => {
            Ok(test_cmd::run(test_cmd::TestArgs { crew: &crew, probes: probes.as_deref(), model, json, db: db.as_deref() }))
        }
        Command::Runs { json, db } => Ok(runs_cmd::list(db.as_deref(), json)),
        Command::Replay { run_id, json, db } => Ok(runs_cmd::replay(&run_id, db.as_deref(), json)),
        Command::Context { run_id, step, agent, json, db } => Ok(runs_cmd::context(&run_id, step, agent.as_deref(), db.as_deref(), json)),
        Command::Revisions { crew, json, db } => Ok(revisions_cmd::list(&crew, db.as_deref(), json)),
        Command::Diff { crew, from, to, to_crew, json, db } => {
            Ok(revisions_cmd::diff(&crew, from, to, to_crew.as_deref(), db.as_deref(), json))
        }
        Command::Models { action, json, db } => Ok(match action {
            None => models_cmd::list(db.as_deref(), json),
            Some(ModelsAction::Add(new)) => models_cmd::add(db.as_deref(), new),
            Some(ModelsAction::Remove { name }) => models_cmd::remove(db.as_deref(), &name),
            Some(ModelsAction::Default { name }) => models_cmd::set_default(db.as_deref(), &name),
            Some(ModelsAction::Check { name }) => models_cmd::check(db.as_deref(), &name, json),
            Some(ModelsAction::Discover { addresses }) => models_cmd::discover(db.as_deref(), addresses, json),
        }),
        Command::Route { crew, query, agent, db } => Ok(agents_cmd::route(&crew, &query, agent.as_deref(), db.as_deref())),
        Command::Agents { action, db } => Ok(match action {
            AgentsAction::Add { file, crew } => agents_cmd::add(&file, &crew, db.as_deref()),
            AgentsAction::List { crew, json } => agents_cmd::list(&crew, json, db.as_deref()),
            AgentsAction::Remove { id, crew } => agents_cmd::remove(&id, &crew, db.as_deref()),
        }),
        Command::Serve { addr, db, store, token, crews, ui, max_connections_per_client, queue, sweep_every } => {
            Ok(serve_cmd::run(serve_cmd::ServeArgs {
                addr,
                db,
                store,
                token,
                crews,
                ui,
                per_client: max_connections_per_client as usize,
                queue,
                sweep_every: std::time::Duration::from_secs(sweep_every),
            }))
        }
        Command::Worker { queue, store, concurrency, id, health, crews, drain, lease } => Ok(worker_cmd::run(worker_cmd::WorkerArgs {
            queue,
            store,
            concurrency: concurrency as usize,
            id,
            health,
            crews,
            drain: std::time::Duration::from_secs(drain),
            lease: std::time::Duration::from_secs(lease),
        })),
        Command::Mcp { crews, db } => Ok(mcp_cmd::run(mcp_cmd::McpArgs { crews, db })),
        Command::Import { from: ImportFrom::Crewai { paths, out } } => Ok(import_cmd::crewai(&paths, out.as_deref())),
        Command::Keys { action } => Ok(match action {
            None => models_cmd::key_status(),
            Some(KeysAction::Set { name }) => models_cmd::set_key(&name),
            Some(KeysAction::Remove { name }) => models_cmd::remove_key(&name),
        }),
    }
}
