//! A tool server as a crew declares it (`tools.servers`, DESIGN.md §6 and
//! `docs/tools.md`): an MCP server started as a child process (stdio) or reached at
//! a URL (Streamable HTTP), with the time each call may take.
//!
//! Each tool has a [`ToolPolicy`] (`tools.policy` for the crew, `tool_policy` for an
//! agent): `allow` calls it, `ask` waits for a person to allow the call, `deny`
//! answers the agent that it may not. Without a rule, built-in tools and the tools a
//! server marks read-only (`readOnlyHint`) are allowed, and every other tool of a
//! server asks.
//!
//! A value that may be secret — an environment variable of the child, a header of
//! the requests — is written either as plain text or as a reference to a key kept in
//! the OS keyring or the environment ([`ServerValue::Key`]), so a token never stands
//! in a crew file. The engine only carries these references; the host resolves them
//! when it starts the server, and nothing resolved comes back into a run's events.

use std::time::Duration;

/// What an agent's tool entry names of `servers`: the server (its index) and one of
/// its tools, or every tool (None) for `server` and `server.*`; `server.tool` and
/// `server/tool` are the same. None when it names no server.
pub fn server_entry<'e>(servers: &[ToolServer], entry: &'e str) -> Option<(usize, Option<&'e str>)> {
    servers.iter().enumerate().find_map(|(index, server)| {
        if entry == server.name {
            return Some((index, None));
        }
        let rest = entry.strip_prefix(server.name.as_str())?;
        let tool = rest.strip_prefix('.').or_else(|| rest.strip_prefix('/'))?;
        match tool {
            "*" => Some((index, None)),
            "" => None,
            tool => Some((index, Some(tool))),
        }
    })
}

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

/// Whether a tool is called when an agent asks for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ToolPolicy {
    /// Called at once.
    #[default]
    Allow,
    /// Called once a person allows the call; the run waits for them.
    Ask,
    /// Never called: the agent is told it may not.
    Deny,
}

impl ToolPolicy {
    /// The choices, as written in a crew file.
    pub const CHOICES: &'static [(ToolPolicy, &'static str)] =
        &[(ToolPolicy::Allow, "allow"), (ToolPolicy::Ask, "ask"), (ToolPolicy::Deny, "deny")];
}

/// One rule of `tools.policy` or an agent's `tool_policy`: the tools it covers
/// (`server.tool`, `server.*`, `server`, or a built-in tool's name) and their policy.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyRule {
    pub tools: String,
    pub policy: ToolPolicy,
}

impl PolicyRule {
    /// How closely the rule names `tool` (`server.tool` or a built-in name): 2 by its
    /// very name, 1 by its server, None when it does not cover it.
    pub fn covers(&self, tool: &str) -> Option<u8> {
        let rule = self.tools.replace('/', ".");
        if rule == tool {
            return Some(2);
        }
        let server = rule.strip_suffix(".*").unwrap_or(&rule);
        tool.strip_prefix(server).filter(|rest| rest.starts_with('.')).map(|_| 1)
    }
}

/// The policy of `tool` (`server.tool`, or a built-in name) for an agent with
/// `agent_rules`, in a crew with `crew_rules`: the agent's rules before the crew's,
/// a rule naming the tool before one naming its server; else the default — allowed
/// for a built-in tool or one its server marks read-only, asked otherwise.
pub fn policy_of(tool: &str, builtin: bool, read_only: bool, agent_rules: &[PolicyRule], crew_rules: &[PolicyRule]) -> ToolPolicy {
    for rules in [agent_rules, crew_rules] {
        let best = rules.iter().filter_map(|rule| rule.covers(tool).map(|closeness| (closeness, rule.policy))).max_by_key(|(c, _)| *c);
        if let Some((_, policy)) = best {
            return policy;
        }
    }
    if builtin || read_only {
        ToolPolicy::Allow
    } else {
        ToolPolicy::Ask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(tools: &str, policy: ToolPolicy) -> PolicyRule {
        PolicyRule { tools: tools.into(), policy }
    }

    #[test]
    fn the_agents_rule_wins_then_the_closest_rule_then_the_default() {
        let crew = [rule("files.*", ToolPolicy::Allow), rule("files.write_file", ToolPolicy::Deny)];
        let agent = [rule("files/write_file", ToolPolicy::Ask)];
        assert_eq!(policy_of("files.write_file", false, false, &[], &crew), ToolPolicy::Deny);
        assert_eq!(policy_of("files.read_text_file", false, false, &[], &crew), ToolPolicy::Allow);
        assert_eq!(policy_of("files.write_file", false, false, &agent, &crew), ToolPolicy::Ask);
        assert_eq!(policy_of("web.search", false, false, &agent, &crew), ToolPolicy::Ask, "unruled, not read-only");
        assert_eq!(policy_of("web.search", false, true, &agent, &crew), ToolPolicy::Allow, "read-only");
        assert_eq!(policy_of("calculator", true, false, &[], &[]), ToolPolicy::Allow);
        assert_eq!(policy_of("calculator", true, false, &[rule("calculator", ToolPolicy::Deny)], &[]), ToolPolicy::Deny);
        assert_eq!(policy_of("filesystem.read", false, true, &[], &[rule("files", ToolPolicy::Deny)]), ToolPolicy::Allow);
    }
}
