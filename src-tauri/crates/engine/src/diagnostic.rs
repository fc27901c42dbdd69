//! What loading and validating a crew can report: a [`Diagnostic`] is one
//! [`Problem`] (the closed list of everything that can be wrong with a crew file),
//! its [`Severity`], where it is ([`Location`]: file, line, column) and what it is
//! about ([`Subject`]: an agent, a routing rule, a signal …, so the window can put
//! the badge on the right node or edge).
//!
//! Every problem has two texts: [`Problem`]'s `Display` is the exact wording of
//! DESIGN.md §3 (what the CLI prints and tests check), and [`Problem::plain`] says
//! the same in words for someone who has never written code.
//!
//! ```
//! use crewgraph_engine::diagnostic::{Problem, Severity};
//! let p = Problem::UnknownSignal { signal: "[UNKNOWN]".into() };
//! assert_eq!(p.to_string(), "signal '[UNKNOWN]' is not registered (unknown signal)");
//! assert_eq!(p.severity(), Severity::Error);
//! ```

use std::fmt;

use serde::Serialize;
use ts_rs::TS;

/// How bad a problem is: errors stop a crew from running, warnings do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Severity {
    /// The crew cannot run until this is fixed.
    Error,
    /// The crew runs, but probably not as intended.
    Warning,
}

/// A place in a crew file. Lines and columns count from 1.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, TS)]
#[ts(export)]
pub struct Location {
    /// The file as the user named it (a crew directory's files are joined to it).
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// What a problem is about, so a view can point at it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum Subject {
    /// The crew as a whole (or a file).
    Crew,
    /// One agent.
    Agent { agent: String },
    /// One routing rule: the `index`th rule (from 0) of `agent` under `routing.signals`.
    Rule { agent: String, index: u32 },
    /// One fallback (`handoff_targets`) entry of an agent.
    Handoff { agent: String, target: String },
    /// A signal of the registry.
    Signal { signal: String },
    /// A parallel group.
    Group { group: String },
}

/// Everything that can be wrong with a crew file. `Display` is the exact message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error, TS)]
#[serde(tag = "code", rename_all = "snake_case")]
#[ts(export)]
pub enum Problem {
    // ---- reading and parsing ----
    /// The path does not exist.
    #[error("cannot open '{path}': no such file or directory")]
    NotFound { path: String },
    /// The path exists but could not be read.
    #[error("cannot read '{path}': {reason}")]
    Unreadable { path: String, reason: String },
    /// A directory without a `crew.yaml`.
    #[error("'{path}' is a directory without a crew.yaml")]
    NoCrewYaml { path: String },
    /// Larger than any sensible crew file.
    #[error("crew file is too large ({size}; the limit is {limit})")]
    TooLarge { size: String, limit: String },
    /// Not UTF-8 text.
    #[error("file is not UTF-8 text")]
    NotUtf8,
    /// Nothing but whitespace and comments.
    #[error("crew file is empty")]
    Empty,
    /// The YAML does not parse.
    #[error("YAML syntax error: {detail}")]
    Syntax { detail: String },
    /// The top level is a list or a single value.
    #[error("a crew file must be a mapping of keys such as 'name:' and 'agents:'")]
    NotAMapping,
    /// A key appears twice in one mapping.
    #[error("duplicate key '{key}' (first at line {first_line})")]
    DuplicateKey { key: String, first_line: u32 },
    /// YAML anchors, aliases or tags.
    #[error("YAML {feature} are not supported in crew files")]
    UnsupportedYaml { feature: String },
    /// A value of the wrong kind (a list where a name belongs, a word where a number belongs).
    #[error("'{field}' {detail}")]
    WrongType { field: String, detail: String },
    /// A required key is missing.
    #[error("missing required field '{field}'")]
    MissingField { field: String },

    // ---- agents ----
    /// The crew lists no agents.
    #[error("the crew has no agents")]
    NoAgents,
    /// `entry_point` names no agent.
    #[error("entry_point '{entry}' is not an agent")]
    EntryPointNotAgent { entry: String },
    /// Two agents share an id.
    #[error("duplicate agent id '{agent}'")]
    DuplicateAgent { agent: String },
    /// An agent with an empty id.
    #[error("agent id must not be empty")]
    EmptyAgentId,
    /// An id with spaces, brackets or other characters that ids may not contain.
    #[error("agent id '{agent}' may only contain letters, digits, '_', '-' and '.'")]
    BadAgentId { agent: String },
    /// A crew directory lists an agent whose file is missing.
    #[error("agent file for '{agent}' is missing: expected {expected}")]
    AgentFileMissing { agent: String, expected: String },
    /// An agent file whose `id:` differs from the id crew.yaml lists.
    #[error("agent file says id '{found}', but crew.yaml lists '{agent}'")]
    AgentFileIdMismatch { agent: String, found: String },
    /// Temperature outside 0..=2.
    #[error("agent '{agent}' temperature {value} is out of range (0 to 2)")]
    BadTemperature { agent: String, value: String },
    /// A fallback target that is not an agent.
    #[error("handoff target '{target}' of agent '{agent}' is not an agent")]
    UnknownHandoffTarget { target: String, agent: String },
    /// `routing.signals` or `routing.agent_behaviors` keyed by a missing agent.
    #[error("{section} names unknown agent '{agent}'")]
    UnknownAgentInSection { section: String, agent: String },

    // ---- signals and rules ----
    /// Not `[NAME]` with letters, digits, `_`, `-` or spaces inside.
    #[error("invalid signal format '{signal}'")]
    InvalidSignalFormat { signal: String },
    /// A rule's signal is neither registered nor built in (strict registries).
    #[error("signal '{signal}' is not registered (unknown signal)")]
    UnknownSignal { signal: String },
    /// The registry restricts who may emit this signal.
    #[error("agent '{agent}' is not allowed to emit signal '{signal}'")]
    NotAllowedToEmit { agent: String, signal: String },
    /// The same signal in two of one agent's rules: only one of them can ever fire
    /// (an error with a `signals:` registry, a warning without one).
    #[error("agent '{agent}' has signal '{signal}' in two rules ({first} and {second}); only one of them can ever fire")]
    RepeatedRule { agent: String, signal: String, first: u32, second: u32, strict: bool },
    /// A rule's target is neither an agent nor a group.
    #[error("signal '{signal}' targets unknown agent '{target}'")]
    UnknownTarget { signal: String, target: String },
    /// A terminate rule with a target.
    #[error("termination signal '{signal}' must have empty target, got '{target}'")]
    TerminateWithTarget { signal: String, target: String },
    /// A route (or broadcast) rule without a target.
    #[error("routing signal '{signal}' needs a target")]
    RouteNeedsTarget { signal: String },
    /// A parallel rule whose target is not a parallel group.
    #[error("parallel signal '{signal}' must target a parallel group, got '{target}'")]
    ParallelNeedsGroup { signal: String, target: String },
    /// Several targets on a signal that is not a broadcast.
    #[error("only broadcast signals can have several targets; '{signal}' has {count}")]
    TooManyTargets { signal: String, count: u32 },
    /// The registry lists valid targets and this is not one.
    #[error("signal '{signal}' target '{target}' is not one of its valid targets: {valid}")]
    NotAValidTarget { signal: String, target: String, valid: String },
    /// The same name twice in `signals:`.
    #[error("signal '{signal}' is registered twice")]
    DuplicateSignal { signal: String },
    /// Two names equal after normalization.
    #[error("signals '{first}' and '{second}' are the same after normalization")]
    SignalsCollide { first: String, second: String },
    /// A pattern signal named with brackets or odd characters.
    #[error("pattern signal name '{signal}' must be a plain name (letters, digits, '_' or '-')")]
    BadPatternName { signal: String },
    /// A pattern that is not a valid regular expression.
    #[error("signal '{signal}' has an invalid pattern: {detail}")]
    BadPattern { signal: String, detail: String },
    /// `allowed_agents` names a missing agent.
    #[error("signal '{signal}' allows unknown agent '{agent}'")]
    UnknownAllowedAgent { signal: String, agent: String },
    /// `valid_targets` names neither an agent nor a group.
    #[error("signal '{signal}' lists unknown valid target '{target}'")]
    UnknownValidTarget { signal: String, target: String },
    /// A `behavior:` that is not one of the five.
    #[error("signal '{signal}' has unknown behavior '{behavior}' (route, terminate, pause, parallel or broadcast)")]
    UnknownBehavior { signal: String, behavior: String },

    // ---- parallel groups and routing ----
    /// A group member that is not an agent.
    #[error("parallel group '{group}' names unknown agent '{agent}'")]
    GroupUnknownAgent { group: String, agent: String },
    /// A group without members.
    #[error("parallel group '{group}' has no agents")]
    GroupEmpty { group: String },
    /// A group's `next_agent` that is not an agent.
    #[error("parallel group '{group}' next_agent '{agent}' is not an agent")]
    GroupUnknownNext { group: String, agent: String },
    /// A group id equal to an agent id.
    #[error("parallel group '{group}' has the same id as an agent")]
    GroupIdIsAgent { group: String },
    /// A duration that does not parse.
    #[error("'{field}' is not a duration: '{value}' (write it like 30s or 2m)")]
    BadDuration { field: String, value: String },
    /// A limit of zero.
    #[error("'{field}' must be at least 1")]
    ZeroLimit { field: String },
    /// An option that is not one of its choices.
    #[error("'{field}' is '{value}', expected one of: {expected}")]
    UnknownChoice { field: String, value: String, expected: String },
    /// Scoring with nobody to route to.
    #[error("the scoring strategy needs at least one agent besides the supervisor '{supervisor}'")]
    ScoringNeedsSpecialists { supervisor: String },
    /// The finalizer is not an agent.
    #[error("finalizer '{agent}' is not an agent")]
    UnknownFinalizer { agent: String },
    /// Gatekeeper routing without a URL.
    #[error("the gatekeeper strategy needs routing.gatekeeper.url")]
    GatekeeperNeedsUrl,
    /// A gatekeeper URL that is not http(s).
    #[error("routing.gatekeeper.url '{url}' is not an http:// or https:// address")]
    GatekeeperBadUrl { url: String },
    /// A tool server's name agents could not write in `server.tool`.
    #[error("tool server name '{server}' may hold only letters, digits, '-' and '_'")]
    ToolServerBadName { server: String },
    /// A tool server with both a command and a URL.
    #[error("tool server '{server}' has both a command and a url; give one")]
    ToolServerTwoWays { server: String },
    /// A tool server URL that is not http(s), or carries a password.
    #[error("tools.servers.{server}.url '{url}' is not an http:// or https:// address without a user or password")]
    ToolServerBadUrl { server: String, url: String },

    /// An agent names a tool its running tool server says it does not have.
    #[error("agent '{agent}' uses tool '{tool}', but the tool server '{server}' has no tool called '{name}' ({has})")]
    ToolNotOnServer { agent: String, tool: String, server: String, name: String, has: String },

    // ---- warnings ----
    /// A deprecated signal is used by a rule.
    #[error("signal '{signal}' is deprecated: {note}")]
    DeprecatedSignal { signal: String, note: String },
    /// No route leads to this agent.
    #[error("agent '{agent}' is not reached by any route")]
    Unreachable { agent: String },
    /// Nothing leads out of this agent.
    #[error("agent '{agent}' has no way out (no signal, no handoff target, not terminal)")]
    NoWayOut { agent: String },
    /// A tool name nobody provides.
    #[error("agent '{agent}' uses unknown tool '{tool}'")]
    UnknownTool { agent: String, tool: String },
    /// A key Crewgraph does not know.
    #[error("unknown key '{key}' (ignored)")]
    UnknownKey { key: String },
}

impl Problem {
    /// Errors stop a crew from running; the rest are warnings.
    pub fn severity(&self) -> Severity {
        match self {
            Problem::DeprecatedSignal { .. }
            | Problem::Unreachable { .. }
            | Problem::NoWayOut { .. }
            | Problem::UnknownTool { .. }
            | Problem::UnknownKey { .. }
            | Problem::RepeatedRule { strict: false, .. } => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// The same problem in plain words, for the window.
    pub fn plain(&self) -> String {
        use Problem::*;
        match self {
            NotFound { path } => format!("Nothing was found at {path}. Check the name and the folder."),
            Unreadable { path, reason } => format!("{path} could not be opened ({reason})."),
            NoCrewYaml { path } => format!("The folder {path} has no crew.yaml, so it is not a crew folder."),
            TooLarge { size, limit } => format!("This file is {size}, far larger than a crew file can be ({limit} at most). Is it the right file?"),
            NotUtf8 => "This file is not plain text (UTF-8). Save it as UTF-8 text and open it again.".into(),
            Empty => "This file is empty. A crew needs at least a name, an entry point and one agent.".into(),
            Syntax { detail } => {
                if detail.contains("tab") {
                    "A tab is used to indent a line. Crew files must be indented with spaces.".into()
                } else {
                    format!("The file's layout is broken here, so it cannot be read: {detail}. Check indentation and quotes.")
                }
            }
            NotAMapping => "A crew file must start with settings such as 'name:' and 'agents:', not a list or a single value.".into(),
            DuplicateKey { key, first_line } => format!("'{key}' is written twice; it was already set on line {first_line}. Keep one."),
            UnsupportedYaml { feature } => format!("Crew files cannot use YAML {feature}. Write the values out in full."),
            WrongType { field, detail } => format!("The value of '{field}' has the wrong kind: it {detail}."),
            MissingField { field } => format!("'{field}' is missing, and a crew cannot do without it."),
            NoAgents => "This crew has no agents yet. Add one to get started.".into(),
            EntryPointNotAgent { entry } => format!("The crew is set to start with '{entry}', but there is no agent with that id."),
            DuplicateAgent { agent } => format!("Two agents have the id '{agent}'. Give each agent its own id."),
            EmptyAgentId => "An agent has no id. Every agent needs a short unique id.".into(),
            BadAgentId { agent } => format!("The id '{agent}' has characters ids cannot have. Use letters, digits, '_', '-' or '.'."),
            AgentFileMissing { agent, expected } => format!("The crew lists '{agent}', but its file {expected} is not there."),
            AgentFileIdMismatch { agent, found } => format!("The file for '{agent}' describes an agent called '{found}'. Make the ids agree."),
            BadTemperature { agent, value } => format!("{agent}'s temperature is {value}; it must be between 0 (focused) and 2 (very creative)."),
            UnknownHandoffTarget { target, agent } => format!("{agent} hands off to '{target}' when no signal matches, but there is no such agent."),
            UnknownAgentInSection { section, agent } => format!("The {section} settings mention '{agent}', but there is no such agent."),
            InvalidSignalFormat { signal } => format!("'{signal}' is not written like a signal. Signals look like [NAME]: a word in square brackets."),
            UnknownSignal { signal } => format!("The signal {signal} is not in this crew's signal list. Add it to the list or pick one that exists."),
            NotAllowedToEmit { agent, signal } => format!("{agent} is not one of the agents allowed to send {signal}."),
            RepeatedRule { agent, signal, .. } => {
                format!("{agent} has two routes for {signal}; only one of them is ever taken. Remove one, or give it another signal.")
            }
            UnknownTarget { signal, target } => format!("{signal} leads to '{target}', but there is no agent or group with that id."),
            TerminateWithTarget { signal, target } => format!("{signal} ends the run, so it cannot also lead to '{target}'. Point it at the End node."),
            RouteNeedsTarget { signal } => format!("{signal} hands the work on, but it does not say to whom. Connect it to an agent."),
            ParallelNeedsGroup { signal, target } => format!("{signal} starts agents working side by side, so it must lead to a parallel group, not '{target}'."),
            TooManyTargets { signal, count } => format!("{signal} leads to {count} places; only a broadcast signal may reach several at once."),
            NotAValidTarget { signal, target, valid } => format!("{signal} may only lead to {valid}, not to '{target}'."),
            DuplicateSignal { signal } => format!("{signal} is in the signal list twice. Keep one."),
            SignalsCollide { first, second } => format!("{first} and {second} look the same to the crew: when replies are matched, capitals, spaces, '_' and '-' do not count. Rename one."),
            BadPatternName { signal } => format!("The line signal '{signal}' needs a plain name such as review-ready, without brackets."),
            BadPattern { signal, detail } => format!("The pattern of '{signal}' cannot be understood: {detail}."),
            UnknownAllowedAgent { signal, agent } => format!("{signal} lets '{agent}' send it, but there is no such agent."),
            UnknownValidTarget { signal, target } => format!("{signal} may lead to '{target}', but there is no agent or group with that id."),
            UnknownBehavior { signal, behavior } => format!("{signal} is set to '{behavior}', which is not something a signal can do. Pick route, terminate, pause, parallel or broadcast."),
            GroupUnknownAgent { group, agent } => format!("The group '{group}' includes '{agent}', but there is no such agent."),
            GroupEmpty { group } => format!("The group '{group}' has nobody in it. Drag agents into it."),
            GroupUnknownNext { group, agent } => format!("After the group '{group}' the work goes to '{agent}', but there is no such agent."),
            GroupIdIsAgent { group } => format!("A group and an agent are both called '{group}'. Rename one."),
            BadDuration { field, value } => format!("'{value}' is not a length of time for {field}. Write it like 30s or 2m."),
            ZeroLimit { field } => format!("{field} must be 1 or more."),
            UnknownChoice { field, value, expected } => format!("'{value}' is not a choice for {field}. Pick one of: {expected}."),
            ScoringNeedsSpecialists { supervisor } => format!("{supervisor} picks the best specialist for each question, but the crew has no other agents to pick from."),
            UnknownFinalizer { agent } => format!("The final answer is to be written by '{agent}', but there is no such agent."),
            GatekeeperNeedsUrl => "The gatekeeper router needs the web address of the service that decides.".into(),
            GatekeeperBadUrl { url } => format!("'{url}' is not a web address the gatekeeper can be reached at: write it as http://host:port/path or https://…"),
            ToolServerBadName { server } => format!("The tool server '{server}' needs a name of letters, digits, '-' and '_' only, so agents can name its tools as {server}.tool."),
            ToolServerTwoWays { server } => format!("The tool server '{server}' has both a command to start and a web address. Keep the one it is."),
            ToolServerBadUrl { server, url } => format!("'{url}' is not a web address the tool server '{server}' can be reached at: write it as http://host:port/mcp or https://…, and keep a password or token out of it (put it in headers, as {{key: NAME}})."),
            ToolNotOnServer { agent, tool, server, name, has } => format!("{agent} uses the tool '{tool}', but the tool server '{server}' has no tool called '{name}' ({has}). Pick one it has."),
            DeprecatedSignal { signal, note } => format!("{signal} is being phased out: {note}"),
            Unreachable { agent } => format!("Nothing leads to {agent}, so it will never get a turn."),
            NoWayOut { agent } => format!("{agent} has no way to finish or hand off. Connect it to another agent or to End."),
            UnknownTool { agent, tool } => format!("{agent} uses a tool called '{tool}', which this crew does not have."),
            UnknownKey { key } => format!("'{key}' is not a setting Crewgraph knows; it is ignored. Is it misspelled?"),
        }
    }
}

/// One problem found in a crew, where it is and what it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The problem with its details (serialised with a `code` tag).
    pub problem: Problem,
    /// The exact message (DESIGN.md §3 wording).
    pub message: String,
    /// The message in plain words, for the window.
    pub plain: String,
    /// Where in which file, when the YAML says.
    pub location: Option<Location>,
    /// What the problem is about.
    pub subject: Subject,
}

impl Diagnostic {
    /// A diagnostic for `problem` about `subject` at `location`.
    pub fn new(problem: Problem, location: Option<Location>, subject: Subject) -> Self {
        Self { severity: problem.severity(), message: problem.to_string(), plain: problem.plain(), problem, location, subject }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `FILE:LINE:COL: message`, with `warning: ` before the message of a warning.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(location) = &self.location {
            write!(f, "{location}: ")?;
        }
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        f.write_str(&self.message)
    }
}
