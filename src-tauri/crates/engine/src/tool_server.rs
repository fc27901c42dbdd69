//! A tool server as a crew declares it (`tools.servers`, DESIGN.md §6 and
//! `docs/tools.md`): an MCP server started as a child process (stdio) or reached at
//! a URL (Streamable HTTP), with the time each call may take.
//!
//! A value that may be secret — an environment variable of the child, a header of
//! the requests — is written either as plain text or as a reference to a key kept in
//! the OS keyring or the environment ([`ServerValue::Key`]), so a token never stands
//! in a crew file. The engine only carries these references; the host resolves them
//! when it starts the server, and nothing resolved comes back into a run's events.

use std::time::Duration;

/// How long one tool call may take unless the server says otherwise.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// One MCP server of a crew (or of the app's Settings).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolServer {
    /// The name agents use: `files` in `files.read_text_file`.
    pub name: String,
    pub transport: ServerTransport,
    /// The most one call may take.
    pub timeout: Duration,
}

/// How a server is reached.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerTransport {
    /// A child process speaking JSON-RPC on its standard input and output.
    Stdio { command: String, args: Vec<String>, env: Vec<(String, ServerValue)>, cwd: Option<String> },
    /// A server at a URL (MCP's Streamable HTTP).
    Http { url: String, headers: Vec<(String, ServerValue)> },
}

/// A value of an environment variable or a header.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerValue {
    /// Written in the crew file as it is.
    Text(String),
    /// The key named `name` (the OS keyring, else the environment), with `prefix`
    /// before it (`Bearer `).
    Key { name: String, prefix: String },
}

impl ToolServer {
    /// A stdio server running `command` with `args`, nothing else set.
    pub fn command(name: &str, command: &str, args: &[&str]) -> Self {
        ToolServer {
            name: name.to_owned(),
            transport: ServerTransport::Stdio {
                command: command.to_owned(),
                args: args.iter().map(|a| a.to_string()).collect(),
                env: Vec::new(),
                cwd: None,
            },
            timeout: DEFAULT_TOOL_TIMEOUT,
        }
    }

    /// What the server is, in a few words for a person (`npx -y …`, a URL), never a
    /// secret: values from keys are not part of it.
    pub fn describe(&self) -> String {
        match &self.transport {
            ServerTransport::Stdio { command, args, .. } => {
                std::iter::once(command.as_str()).chain(args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
            }
            ServerTransport::Http { url, .. } => url.clone(),
        }
    }
}
