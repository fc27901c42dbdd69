//! `crewgraph run`, `crewgraph resume` and `crewgraph approve`: a run on the
//! terminal, its steps printed as they are stored. Ctrl-C ends the run `cancelled`,
//! its events kept. The exit status is 0 unless the run failed (or could not start).
//!
//! A tool call that asks for approval is answered by `--approve-tools`, else by the
//! person at the terminal (the question goes to stderr, the answer comes from
//! stdin), else it leaves the run paused for `crewgraph approve`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use std::io::IsTerminal;

use crewgraph::api::{Api, ApiError, ApproveToolCall, ForkRun, Replies, ResumeRun, RunOptions, StartRun};
use crewgraph_engine::run::{approval, Answer, Approvals, RunOutcome, RunStatus, ToolDecision};
use crewgraph_engine::RunId;
use tokio_util::sync::CancellationToken;

use super::store::open_api;
use super::terminal::tell;
use super::transcript::Printer;

/// What `run` and `resume` share.
pub struct RunArgs {
    pub script: Option<PathBuf>,
    pub model: Option<String>,
    /// `run` only: the agent the person asks for (`--agent`).
    pub agent: Option<String>,
    pub json: bool,
    pub db: Option<PathBuf>,
    /// `--approve-tools`: who answers a tool call asking for approval (None: the
    /// person at the terminal, if there is one).
    pub approvals: Option<Approvals>,
    /// `--break-before` (None: a resume keeps the run's).
    pub breaks: Option<Vec<String>>,
    /// `resume --step`.
    pub step: bool,
}

pub fn run(file: &Path, input: &str, args: RunArgs) -> ExitCode {
    // The one run request the window and the server take too, checked alike.
    let request = StartRun {
        crew: file.display().to_string(),
        input: input.to_owned(),
        replies: replies(&args),
        agent: args.agent.clone(),
        breakpoints: args.breaks.clone().unwrap_or_default(),
    };
    drive(
        args,
        |api| request.options(api),
        |api, options, printer, cancel| {
            let file = file.to_path_buf();
            let input = input.to_owned();
            async move { api.start_run(&file, &input, &options, printer, &cancel).await }
        },
    )
}

pub fn resume(id: &str, input: Option<&str>, args: RunArgs) -> ExitCode {
    let request = ResumeRun {
        id: id.to_owned(),
        input: input.map(str::to_owned),
        breakpoints: args.breaks.clone(),
        step: args.step,
        replies: replies(&args),
    };
    drive(
        args,
        |api| request.options(api),
        |api, options, printer, cancel| {
            let id = RunId::from(id);
            let input = input.map(str::to_owned);
            async move { api.resume_run(&id, input.as_deref(), &options, printer, &cancel).await }
        },
    )
}

pub fn approve(id: &str, call_id: &str, decision: ToolDecision, reason: Option<&str>, args: RunArgs) -> ExitCode {
    let request = ApproveToolCall {
        id: id.to_owned(),
        call_id: call_id.to_owned(),
        decision,
        reason: reason.map(str::to_owned),
        replies: replies(&args),
    };
    drive(
        args,
        |api| request.answer(api).map(|(_, options)| options),
        |api, options, printer, cancel| {
            let id = RunId::from(id);
            let answer = request.answer(&api);
            async move { api.answer_tool_call(&id, answer?.0, &options, printer, &cancel).await }
        },
    )
}

/// `crewgraph fork`: a new run from run `id`'s reply at `seq`, that reply replaced.
pub fn fork(id: &str, seq: u64, reply: &str, on_revision: bool, args: RunArgs) -> ExitCode {
    let request = ForkRun { id: id.to_owned(), at: seq, reply: reply.to_owned(), on_revision, replies: replies(&args) };
    drive(
        args,
        |api| request.fork(api).map(|(_, options)| options),
        |api, options, printer, cancel| {
            let id = RunId::from(id);
            let fork = request.fork(&api);
            async move { api.fork_run(&id, &fork?.0, &options, printer, &cancel).await }
        },
    )
}

/// The flags a command going on with this run (`approve`, `resume`) must repeat for
/// the replies to come from the same place: ` --script PATH` or ` --model NAME`.
fn again(args: &RunArgs) -> String {
    let quoted = |text: &str| if text.contains(char::is_whitespace) { format!("'{text}'") } else { text.to_owned() };
    let script = args.script.as_ref().map(|path| format!(" --script {}", quoted(&path.display().to_string())));
    let model = args.model.as_ref().map(|model| format!(" --model {}", quoted(model)));
    script.into_iter().chain(model).collect()
}

/// Where the agents' replies come from: `--script`, `--model`.
fn replies(args: &RunArgs) -> Replies {
    Replies { script_file: args.script.as_ref().map(|path| path.display().to_string()), model: args.model.clone(), ..Replies::default() }
}

fn drive<O, F, Fut>(args: RunArgs, options: O, go: F) -> ExitCode
where
    O: FnOnce(&Api) -> Result<RunOptions, ApiError>,
    F: FnOnce(Api, RunOptions, Arc<Printer>, CancellationToken) -> Fut,
    Fut: std::future::Future<Output = Result<RunOutcome, ApiError>>,
{
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            tell!("crewgraph: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let api = match open_api(args.db.as_deref()) {
        Ok(api) => api,
        Err(error) => {
            tell!("crewgraph: {error}");
            return ExitCode::FAILURE;
        }
    };
    let printer = Arc::new(Printer::new(args.json).going_on_with(again(&args)));
    let mut options = match options(&api) {
        Ok(options) => options,
        Err(error) => {
            tell!("crewgraph: {error}");
            return ExitCode::FAILURE;
        }
    };
    options.approvals = args.approvals.unwrap_or_default();
    // A person at the terminal answers tool calls as they come.
    let asks = args.approvals.is_none() && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let cancel = CancellationToken::new();
    let outcome = runtime.block_on(async {
        listen_for_ctrl_c(cancel.clone());
        let mut outcome = go(api.clone(), options.clone(), printer.clone(), cancel.clone()).await;
        while let (true, Ok(paused)) = (asks, &outcome) {
            let Some(answer) = ask_at_terminal(&api, paused).await else { break };
            // (With a script, the API counts the replies the run used, and the script goes on after them.)
            outcome = api.answer_tool_call(&paused.run_id.clone(), answer, &options, printer.clone(), &cancel).await;
        }
        outcome
    });
    // The run's spans are sent before the process ends (docs/observability.md).
    if let Some(lost) = api.flush_traces(std::time::Duration::from_secs(5)) {
        tell!("crewgraph: {lost}");
    }
    match outcome {
        Ok(outcome) if outcome.status == RunStatus::Failed => {
            // Said on stderr too: with --json, stdout often goes to a file or a pipe.
            let error = outcome.error.as_deref().unwrap_or("no reason given");
            tell!("crewgraph: run {} failed: {error}", outcome.run_id);
            ExitCode::FAILURE
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            tell!("crewgraph: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The person's answer to the tool call `outcome`'s run waits on, asked at the
/// terminal; None when it waits on none (or stdin ends).
async fn ask_at_terminal(api: &Api, outcome: &RunOutcome) -> Option<Answer> {
    if outcome.status != RunStatus::Paused {
        return None;
    }
    let waiting = approval::pending(&api.run_events(&outcome.run_id, None).await.ok()?)?;
    let question = format!(
        "\n{} wants to call {} with {}\nAllow it? [y] yes, once  [a] yes, for the rest of this run  [n] no: ",
        waiting.agent, waiting.name, waiting.arguments
    );
    tokio::task::spawn_blocking(move || {
        let read = || {
            let mut line = String::new();
            (std::io::stdin().read_line(&mut line).ok()? > 0).then_some(line.trim().to_lowercase())
        };
        loop {
            eprint!("{}", super::terminal::safe(&question));
            let decision = match read()?.as_str() {
                "y" | "yes" => ToolDecision::AllowOnce,
                "a" | "all" | "always" => ToolDecision::AllowRun,
                "n" | "no" => ToolDecision::Deny,
                _ => continue,
            };
            let reason = if decision == ToolDecision::Deny {
                eprint!("Why not? (told to the agent; Enter to skip): ");
                read().filter(|r| !r.is_empty())
            } else {
                None
            };
            return Some(Answer { call_id: waiting.call_id.clone(), decision, reason });
        }
    })
    .await
    .ok()
    .flatten()
}

/// Cancels the run on Ctrl-C. The handler is in place when this returns (before the
/// run starts): a Ctrl-C that came before it would kill the process and leave the
/// run `running` instead of `cancelled`.
#[cfg(unix)]
fn listen_for_ctrl_c(cancel: CancellationToken) {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::interrupt()) {
        Ok(mut interrupt) => {
            tokio::spawn(async move {
                if interrupt.recv().await.is_some() {
                    cancel.cancel();
                }
            });
        }
        Err(error) => tell!("crewgraph: Ctrl-C cannot stop this run cleanly: {error}"),
    }
}

#[cfg(not(unix))]
fn listen_for_ctrl_c(cancel: CancellationToken) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
}
