//! A real PostgreSQL server for tests (the `testing` feature): [`PostgresServer`]
//! runs Debian's `initdb` into a fresh temporary folder and starts the server with
//! `pg_ctl` on a free port of 127.0.0.1 with a socket folder of its own — never a
//! system service — and [`PostgresServer::database`] makes one database per test,
//! so tests do not see each other's runs.
//!
//! - **Where the programs are**: `initdb` and `pg_ctl` on `PATH`, else the newest
//!   `/usr/lib/postgresql/*/bin` (the Makefile's `deps` installs Debian's
//!   `postgresql`).
//! - **As root** (CI runs as root, and `initdb` refuses root), the folder is given
//!   to the `nobody` user and the server programs run as it through `runuser`.
//! - **Ready** when `pg_isready` says so, polled every 50 ms for at most 60 s; a
//!   server that fails to start says why (the end of its log).
//! - **Stopped** by [`Drop`] (`pg_ctl stop -m immediate`), and, whatever happens to
//!   the test process — a panic, `exit`, even `kill -9` — by a watchdog started
//!   beside the server: a small shell that waits for end of file on a pipe only the
//!   test process holds, then stops the server and removes its folder. The process
//!   ending closes the pipe, so no server outlives its tests.
//! - **Restarted** by [`PostgresServer::restart`]: stopped as a crash would and
//!   started again on its port with its data (a test of a database going away).
//!
//! [`shared`] starts one server per test binary, on first use (initdb and start
//! take about half a second here; a database per test about a quarter of a second).
//!
//! ```no_run
//! # async fn example() {
//! use crewgraph_store_postgres::{testing, PostgresStore};
//! let url = testing::shared().database("my_test").await.expect("a database for the test");
//! let store = PostgresStore::connect(&url).await.expect("the store");
//! # }
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;

/// How long a server may take to accept connections.
const READY_WITHIN: Duration = Duration::from_secs(60);
/// How often readiness is asked.
const POLL: Duration = Duration::from_millis(50);
/// The superuser `initdb` makes (trusted on loopback: no password).
pub const USER: &str = "crew";
/// Who runs the server when the tests run as root.
const UNPRIVILEGED: &str = "nobody";

/// Why a test server could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// `initdb` and `pg_ctl` are nowhere to be found.
    #[error(
        "PostgreSQL's server programs (initdb, pg_ctl) are neither on PATH nor in /usr/lib/postgresql/*/bin; \
         install Debian's postgresql package (make deps does)"
    )]
    NotInstalled,
    /// A step of starting the server failed.
    #[error("cannot {doing}: {detail}")]
    Failed { doing: String, detail: String },
    /// The server did not accept connections in time.
    #[error("the PostgreSQL server on 127.0.0.1:{port} did not accept connections within {} s; its log ends with:\n{log}", waited.as_secs())]
    NotReady { port: u16, waited: Duration, log: String },
}

/// A PostgreSQL server of the tests' own, on 127.0.0.1, stopped on drop.
#[derive(Debug)]
pub struct PostgresServer {
    root: PathBuf,
    data: PathBuf,
    bin: PathBuf,
    port: u16,
    /// Who runs the server programs (None: this process's user).
    user: Option<&'static str>,
    /// Stops the server when this process ends (see the module overview).
    watchdog: Mutex<Option<Child>>,
}

/// Numbers the servers and the databases of this process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The server of this test binary, started on first use and stopped when the
/// process ends. Panics, saying why, when no server can be started.
pub fn shared() -> &'static PostgresServer {
    static SHARED: OnceLock<Result<PostgresServer, String>> = OnceLock::new();
    match SHARED.get_or_init(|| PostgresServer::start().map_err(|err| err.to_string())) {
        Ok(server) => server,
        Err(err) => panic!("cannot start PostgreSQL for the tests: {err}"),
    }
}

impl PostgresServer {
    /// Makes a cluster in a new temporary folder and starts a server on it.
    pub fn start() -> Result<PostgresServer, LaunchError> {
        let bin = server_programs()?;
        let root = std::env::temp_dir().join(format!("crewgraph-pg-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir(&root).map_err(|err| failed("make the server's folder", &root, err))?;
        let owner = std::fs::metadata(&root).map_err(|err| failed("read the server's folder", &root, err))?.uid();
        let user = (owner == 0).then_some(UNPRIVILEGED);
        if let Some(user) = user {
            run(Command::new("chown").arg(user).arg(&root), "give the server's folder to the user nobody")?;
        }
        let mut server = PostgresServer { data: root.join("data"), root, bin, port: 0, user, watchdog: Mutex::new(None) };
        let mut initdb = server.command("initdb");
        run(
            initdb.arg("-D").arg(&server.data).args(["-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]),
            "make a PostgreSQL cluster (initdb)",
        )?;
        std::fs::create_dir(server.root.join("socket")).map_err(|err| failed("make the socket folder", &server.root, err))?;
        if let Some(user) = user {
            run(Command::new("chown").arg(user).arg(server.root.join("socket")), "give the socket folder to nobody")?;
        }
        server.watch()?;
        // A free port can be taken by another program between our finding it and the
        // server binding it: then try another.
        let mut last = None;
        for _ in 0..3 {
            server.port = free_port()?;
            match server.launch() {
                Ok(()) => return Ok(server),
                Err(err @ LaunchError::NotReady { .. }) if server.log().contains("could not bind") => last = Some(err),
                Err(err) => return Err(err),
            }
        }
        Err(last.unwrap_or(LaunchError::NotInstalled))
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of `database` on this server.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{database}", self.port)
    }

    /// Makes a new, empty database whose name starts with `hint`, and returns its URL.
    pub async fn database(&self, hint: &str) -> Result<String, LaunchError> {
        let clean: String = hint.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(40).collect::<String>().to_lowercase();
        let name = format!("{clean}_{}", COUNTER.fetch_add(1, Ordering::Relaxed));
        let doing = format!("create the database {name}");
        let (client, connection) = tokio_postgres::connect(&self.url("postgres"), tokio_postgres::NoTls)
            .await
            .map_err(|err| LaunchError::Failed { doing: doing.clone(), detail: err.to_string() })?;
        let connection = tokio::spawn(connection);
        let created = client.batch_execute(&format!("CREATE DATABASE \"{name}\"")).await;
        drop(client);
        let _ = connection.await;
        created.map_err(|err| LaunchError::Failed { doing, detail: err.to_string() })?;
        Ok(self.url(&name))
    }

    /// Stops the server at once (as a crash would: the tests want no shutdown
    /// checkpoint) and removes its folder.
    pub fn stop(&mut self) {
        let _ = self.command("pg_ctl").arg("stop").arg("-D").arg(&self.data).args(["-m", "immediate", "-s"]).output();
        let watchdog = self.watchdog.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        if let Some(mut watchdog) = watchdog {
            // Closing its pipe lets it finish: it removes the folder and ends.
            drop(watchdog.stdin.take());
            let _ = watchdog.wait();
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }

    /// Stops the server at once, as a crash would, and starts it again on the same
    /// port with the same data (its clients' connections are cut meanwhile).
    pub fn restart(&self) -> Result<(), LaunchError> {
        run(
            self.command("pg_ctl").arg("stop").arg("-D").arg(&self.data).args(["-m", "immediate", "-s"]),
            "stop the PostgreSQL server (pg_ctl stop)",
        )?;
        self.launch()
    }

    /// One of the server programs, run as the server's user.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        let mut command = match self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(path);
                command
            }
            None => Command::new(path),
        };
        // A folder the server's user may enter (not the tests' own, which root may own).
        command.current_dir(&self.root);
        command
    }

    /// Starts the watchdog that stops the server once this process ends.
    fn watch(&mut self) -> Result<(), LaunchError> {
        let script = r#"read _; "$1" stop -D "$2" -m immediate -s >/dev/null 2>&1; rm -rf "$3""#;
        let mut shell = match self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--", "sh"]);
                command
            }
            None => Command::new("sh"),
        };
        let child = shell
            .args(["-c", script, "watchdog"])
            .arg(self.bin.join("pg_ctl"))
            .arg(&self.data)
            .arg(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .current_dir(&self.root)
            // Its own process group: a Ctrl-C to the tests must not end it before it
            // has stopped the server.
            .process_group(0)
            .spawn()
            .map_err(|err| failed("start the server's watchdog", &self.root, err))?;
        *self.watchdog.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(child);
        Ok(())
    }

    /// Starts the server on `self.port` and waits until it accepts connections.
    fn launch(&self) -> Result<(), LaunchError> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
             -c max_connections=200",
            self.port,
            self.root.join("socket").display()
        );
        let _ = std::fs::remove_file(self.root.join("log"));
        let mut start = self.command("pg_ctl");
        start.arg("start").arg("-D").arg(&self.data).arg("-l").arg(self.root.join("log")).args(["-W", "-s", "-o", &options]);
        // Its own process group too, so that a Ctrl-C leaves the stopping to the watchdog.
        start.process_group(0);
        run(&mut start, "start the PostgreSQL server (pg_ctl start)")?;
        let began = Instant::now();
        while began.elapsed() < READY_WITHIN {
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER, "-d", "postgres"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            if ready.is_ok_and(|status| status.success()) {
                return Ok(());
            }
            // A probe that came while the server was starting (or recovering, after a
            // restart) is refused with a FATAL line of its own ("the database system is
            // starting up", "… is not yet accepting connections"): not a failure.
            let log = self.log();
            let failed = log.lines().any(|line| line.contains("FATAL") && !line.contains("the database system is"));
            if failed || log.contains("could not bind") {
                break;
            }
            std::thread::sleep(POLL);
        }
        Err(LaunchError::NotReady { port: self.port, waited: began.elapsed(), log: tail(&self.log(), 20) })
    }

    /// The server's log so far.
    fn log(&self) -> String {
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(self.root.join("log")) {
            let _ = file.read_to_string(&mut text);
        }
        text
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The folder of `initdb` and `pg_ctl`: on PATH, else the newest Debian version's.
fn server_programs() -> Result<PathBuf, LaunchError> {
    let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file() && dir.join("pg_isready").is_file();
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(dir) = std::env::split_paths(&path).find(|dir| has_both(dir)) {
            return Ok(dir);
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| Some((entry.file_name().to_str()?.parse().ok()?, entry.path().join("bin"))))
        .filter(|(_, bin)| has_both(bin))
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or(LaunchError::NotInstalled)
}

/// A port of 127.0.0.1 nothing listens on now.
fn free_port() -> Result<u16, LaunchError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|err| failed("find a free port", Path::new("127.0.0.1"), err))?;
    listener.local_addr().map(|address| address.port()).map_err(|err| failed("find a free port", Path::new("127.0.0.1"), err))
}

/// Runs `command` to its end; its output is the error when it fails.
fn run(command: &mut Command, doing: &str) -> Result<(), LaunchError> {
    let output =
        command.stdin(Stdio::null()).output().map_err(|err| LaunchError::Failed { doing: doing.into(), detail: err.to_string() })?;
    if output.status.success() {
        return Ok(());
    }
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    Err(LaunchError::Failed { doing: doing.into(), detail: format!("{} ({})", tail(&said, 10), output.status) })
}

fn failed(doing: &str, path: &Path, err: std::io::Error) -> LaunchError {
    LaunchError::Failed { doing: format!("{doing} ({})", path.display()), detail: err.to_string() }
}

/// The last `lines` lines of `text`.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
