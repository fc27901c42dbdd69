//! `crewgraph serve`: the HTTP + SSE server (see [`crewgraph::serve`]) over the
//! chosen database (a file, or PostgreSQL with `--store`) and crews folder. It says where it listens on stdout
//! (`crewgraph serve: listening on http://ADDR`), runs until SIGTERM or Ctrl-C, then
//! interrupts the runs going on (resumable), lets the database finish its writes,
//! and exits 0. It refuses to start (exit 2) on a non-loopback address without a token.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crewgraph::api::{Api, Cluster};
use crewgraph::serve::{check_exposure, shutdown, ServeConfig, Server};
use crewgraph_engine::run::Executor;

use super::store::open_serve_host;
use super::terminal::{say, tell};

/// What `serve` is given.
pub struct ServeArgs {
    pub addr: SocketAddr,
    pub db: Option<PathBuf>,
    /// A PostgreSQL database to keep runs in instead (`postgres://…`).
    pub store: Option<String>,
    pub token: Option<String>,
    pub crews: PathBuf,
    pub ui: Option<PathBuf>,
    /// The most connections one client address may hold at once.
    pub per_client: usize,
    /// A Redis queue to hand runs to (`redis://…`): the server is an API node.
    pub queue: Option<String>,
    /// With a queue: how often the sweeper runs.
    pub sweep_every: Duration,
}

/// `--addr`: an IP address and port, or a host name and port (`localhost:7878` is
/// 127.0.0.1:7878; another name is looked up, its first address taken).
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    use std::net::{Ipv4Addr, ToSocketAddrs};
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let wrong = || format!("'{text}' is not an address with a port, like 127.0.0.1:7878 or localhost:7878");
    let (host, port) = text.rsplit_once(':').ok_or_else(wrong)?;
    let port: u16 = port.parse().map_err(|_| wrong())?;
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    let mut found = (host, port).to_socket_addrs().map_err(|e| format!("cannot find the host '{host}': {e}"))?;
    found.next().ok_or_else(|| format!("the host '{host}' has no address"))
}

pub fn run(args: ServeArgs) -> ExitCode {
    let token = args.token.or_else(|| std::env::var("CREWGRAPH_TOKEN").ok());
    // Checked before anything is opened: a refused start touches nothing.
    if let Err(error) = check_exposure(args.addr, token.as_deref()) {
        tell!("crewgraph serve: {error}");
        return ExitCode::from(2);
    }
    let (backing, runtime) = match open_serve_host(args.db.as_deref(), args.store.as_deref()) {
        Ok(host) => host,
        Err(error) => return fail(&error),
    };
    let mut api: Api = backing.api(&args.crews);
    if matches!(backing, super::store::Backing::Postgres(_)) {
        // Other servers share the database: each leg holds its run's lease, so no run
        // is executed by two of them at once (docs/scale-out.md).
        api = api.with_executor(this_server());
    }
    let queue_url = args.queue.or_else(|| std::env::var("CREWGRAPH_QUEUE").ok()).filter(|url| !url.trim().is_empty());
    if queue_url.is_some() && !matches!(backing, super::store::Backing::Postgres(_)) {
        tell!(
            "crewgraph serve: --queue needs a database the workers share: --store postgres://USER@HOST:PORT/DATABASE (or $CREWGRAPH_STORE)"
        );
        return ExitCode::from(2);
    }
    let cluster = match &queue_url {
        None => None,
        Some(url) => match runtime.block_on(async { crewgraph_queue::RedisQueue::connect(url).await.map(Cluster::new) }) {
            Ok(cluster) => Some(cluster),
            Err(error) => return fail(&error.to_string()),
        },
    };
    if let Some(cluster) = &cluster {
        api = api.with_queue(cluster.clone());
        let (sweeper, every) = (api.clone(), args.sweep_every);
        runtime.spawn(async move { sweep(sweeper, every).await });
        // The runs it executes itself (typed replies, one turn at a time): cancels and
        // watchers from other API nodes reach them on the control channel.
        let follower = api.clone();
        runtime.spawn(async move { follower.follow_control().await });
    }
    let mut config = ServeConfig::new(args.addr);
    config.token = token;
    config.connections.per_client = args.per_client;
    if args.ui.is_some() {
        config.ui_dir = args.ui;
    }
    let ui = config.ui_dir.clone().filter(|dir| dir.join("index.html").is_file());
    let outcome = runtime.block_on(async {
        let signals = shutdown::signals();
        let tools = api.clone();
        let server = Server::bind(api, config).await.map_err(|e| e.to_string())?;
        let crews = std::path::absolute(&args.crews).unwrap_or(args.crews.clone());
        let runs = match &cluster {
            Some(cluster) => format!("{}, runs executed by the workers of the queue at {}", backing.describe(), cluster.queue().address()),
            None => backing.describe(),
        };
        tell!(
            "crewgraph serve: crews in {}, {}, {}",
            crews.display(),
            runs,
            ui.map_or_else(
                || "no web UI (build it with 'make build', or give it with --ui DIR)".to_owned(),
                |u| format!("web UI from {}", u.display())
            )
        );
        say!("crewgraph serve: listening on http://{}", server.local_addr());
        let _ = std::io::stdout().flush();
        let stopped = server.run(signals).await.map_err(|e| format!("the server failed: {e}"));
        // The tool servers it started stop with it (their process groups killed).
        tools.stop_tool_servers().await;
        // The runs' spans are sent before the server ends (docs/observability.md).
        if let Some(lost) = tools.flush_traces(Duration::from_secs(5)) {
            tell!("crewgraph serve: {lost}");
        }
        stopped
    });
    // Every task (and its hold on the database) ends with the runtime; then the last
    // handle closes the database, after its writer has written all it was given.
    runtime.shutdown_timeout(Duration::from_secs(5));
    drop(backing);
    match outcome {
        Ok(stopped) => {
            if !stopped.interrupted.is_empty() {
                let ids: Vec<String> = stopped.interrupted.iter().map(ToString::to_string).collect();
                tell!("crewgraph serve: stopped {} run(s), resumable from their last stored step: {}", ids.len(), ids.join(", "));
            }
            if !stopped.drained {
                tell!("crewgraph serve: some requests were still open when it stopped");
            }
            tell!("crewgraph serve: stopped");
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error),
    }
}

/// Queues again, every `every`, the runs the store has as runnable and no queue
/// entry names ([`Api::sweep`]).
async fn sweep(api: Api, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match api.sweep().await {
            Ok(swept) if !swept.is_empty() => {
                let shown: Vec<String> = swept.iter().take(10).map(ToString::to_string).collect();
                let more = if swept.len() > shown.len() { format!(" and {} more", swept.len() - shown.len()) } else { String::new() };
                tell!("crewgraph serve: queued again {} run(s) no queue entry named: {}{more}", swept.len(), shown.join(", "));
            }
            Ok(_) => {}
            Err(error) => tell!("crewgraph serve: the sweep could not run ({}); trying again in {} s", error.message, every.as_secs()),
        }
    }
}

/// This server as the executor of the runs it executes: named after its host and
/// process, a lease of 30 s renewed while a leg runs.
fn this_server() -> Executor {
    let host = crewgraph::worker::host_name().unwrap_or_else(|| "this machine".to_owned());
    Executor::new(format!("crewgraph serve on {host} (process {})", std::process::id()), Duration::from_secs(30))
}

fn fail(error: &str) -> ExitCode {
    tell!("crewgraph serve: {error}");
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::parse_addr;

    #[test]
    fn addresses_take_host_names_and_say_what_is_wrong() {
        assert_eq!(parse_addr("localhost:7878"), Ok("127.0.0.1:7878".parse().unwrap()));
        assert_eq!(parse_addr("LOCALHOST:1"), Ok("127.0.0.1:1".parse().unwrap()));
        assert_eq!(parse_addr("[::1]:80"), Ok("[::1]:80".parse().unwrap()));
        for wrong in ["localhost", "localhost:port", "7878", ""] {
            assert!(parse_addr(wrong).unwrap_err().contains("is not an address with a port"), "{wrong}");
        }
    }
}
