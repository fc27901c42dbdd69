//! Reading a crew from disk (or from text): a self-contained YAML file or a Go-engine
//! crew directory, into the serde file model ([`crate::file`]) and then, through
//! [`crate::validate`], into a [`Crew`] — collecting every problem on the way with
//! its `file:line:col`.
//!
//! Bad input never panics and never stops at the first problem it can get past: a
//! missing path, a directory without `crew.yaml`, a file over [`MAX_FILE_SIZE`], bytes
//! that are not UTF-8, an empty file, YAML that does not parse (tabs, an unclosed
//! quote …), a value of the wrong shape, an agent file missing from `agents/`.
//! Unknown keys are warnings.
//!
//! ```
//! let loaded = crewgraph_engine::load::load_str("inline.yaml", "name: x\nentry_point: a\nagents:\n  - id: a\n    is_terminal: true\n");
//! assert!(loaded.is_valid(), "{:?}", loaded.diagnostics);
//! ```

use std::fs;
use std::io::ErrorKind;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use marked_yaml::{LoadError, LoaderOptions, Marker, Node, Span, Spanned};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::crew::{Crew, CrewLayout, ServerTransport, ToolServer};
use crate::diagnostic::{Diagnostic, Problem, Subject};
use crate::file::{is_null, spec, AgentEntry, AgentFile, CrewFile, GO_ENGINE_AGENT_KEYS, GO_ENGINE_SETTINGS};
use crate::report::{Report, ToolMention};
use crate::validate::{is_valid_agent_id, validate, LoadedAgent};
use crate::words::{self, plain_expected, Said};

/// The largest crew file Crewgraph reads (2 MiB: a hundred long prompts fit easily).
pub const MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;

/// The result of loading a crew: the crew (unless it could not be parsed at all)
/// and every problem found, errors and warnings, ordered by file and position.
#[derive(Debug)]
pub struct Loaded {
    /// None when the file could not be read or parsed into a crew.
    pub crew: Option<Crew>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read, crew file first.
    pub files: Vec<PathBuf>,
    /// Where the agents name tools that are not built in.
    pub tool_mentions: Vec<ToolMention>,
}

impl Loaded {
    /// True when a crew was built and no error was found (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.crew.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }
}

/// Loads a crew file or a crew directory (a directory holding `crew.yaml`).
pub fn load_path(path: &Path) -> Loaded {
    load_path_with(path, &[])
}

/// An agent added to a crew while the app runs (from the form, `crewgraph agents
/// add`, `POST /agents`), as the YAML of one agent file (the Go engine's
/// `agents/<id>.yaml` shape).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeAgentText {
    /// How locations name it (`runtime agent 'lore'`, or the file it came from).
    pub name: String,
    pub yaml: String,
}

/// Loads a crew with `runtime` agents after its own, validated together: a runtime
/// agent that clashes with another or breaks a rule is reported at its own
/// `name:line:col`.
pub fn load_path_with(path: &Path, runtime: &[RuntimeAgentText]) -> Loaded {
    let mut report = Report::new();
    let mut files = Vec::new();
    let shown = path.display().to_string();
    let crew = load_from_disk(path, &shown, runtime, &mut report, &mut files, None);
    Loaded { crew, tool_mentions: report.take_tool_mentions(), diagnostics: report.finish(), files }
}

/// Loads a crew file or directory for editing: the crew as [`load_path`] loads it,
/// and its file model as an editor holds it ([`spec::to_spec`], agent files written
/// in place) — None when the file could not be read as a crew at all.
pub fn load_spec(path: &Path) -> (Loaded, Option<serde_json::Value>) {
    let mut report = Report::new();
    let mut files = Vec::new();
    let mut spec = None;
    let shown = path.display().to_string();
    let crew = load_from_disk(path, &shown, &[], &mut report, &mut files, Some(&mut spec));
    (Loaded { crew, tool_mentions: report.take_tool_mentions(), diagnostics: report.finish(), files }, spec)
}

/// Loads a self-contained crew from text; `name` is used in locations. Agent ids
/// that would need a crew directory are reported as missing files.
pub fn load_str(name: &str, text: &str) -> Loaded {
    let mut report = Report::new();
    let source = report.add_file(name.to_owned());
    let crew = parse_text(source, text, &mut report).and_then(|node| deserialize::<CrewFile>(&node, &mut report, Context::Crew)).map(
        |crew_file| {
            let agents = resolve_agents(&crew_file, None, &mut report, &mut Vec::new());
            validate(&crew_file, &agents, CrewLayout::File, &mut report)
        },
    );
    Loaded { crew, tool_mentions: report.take_tool_mentions(), diagnostics: report.finish(), files: Vec::new() }
}

/// Loads a crew an editor holds ([`spec`]) as [`load_str`] would load its YAML, but
/// from the tree the JSON stands for ([`spec::to_node`]) instead of from text: the
/// live check of every edit. Problems carry no line and column (there is no text
/// yet); `name` names the crew in them. Fails only for JSON that is not a mapping.
pub fn load_spec_value(name: &str, value: &serde_json::Value) -> Result<Loaded, spec::SpecError> {
    let node = spec::to_node(value)?;
    let mut report = Report::new();
    report.add_file(name.to_owned());
    let crew = deserialize::<CrewFile>(&node, &mut report, Context::Crew).map(|crew_file| {
        let agents = resolve_agents(&crew_file, None, &mut report, &mut Vec::new());
        validate(&crew_file, &agents, CrewLayout::File, &mut report)
    });
    Ok(Loaded { crew, tool_mentions: report.take_tool_mentions(), diagnostics: report.finish(), files: Vec::new() })
}

/// Parses YAML text into any serde type with the positions and messages crew files
/// get: errors, and unknown keys as warnings, each with `file:line:col`. For other
/// YAML files of Crewgraph's (scripts), so they report problems the same way.
pub fn parse_yaml<T: DeserializeOwned + Serialize>(name: &str, text: &str) -> (Option<T>, Vec<Diagnostic>) {
    let mut report = Report::new();
    let source = report.add_file(name.to_owned());
    let value = parse_text(source, text, &mut report).and_then(|node| deserialize::<T>(&node, &mut report, Context::Other));
    (value, report.finish())
}

fn load_from_disk(
    path: &Path,
    shown: &str,
    runtime: &[RuntimeAgentText],
    report: &mut Report,
    files: &mut Vec<PathBuf>,
    spec: Option<&mut Option<serde_json::Value>>,
) -> Option<Crew> {
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) => {
            report.in_file(shown, open_problem(shown, &error));
            return None;
        }
    };
    let (crew_path, crew_shown, base, base_shown) = if metadata.is_dir() {
        let Some(crew_path) = ["crew.yaml", "crew.yml"].iter().map(|f| path.join(f)).find(|p| p.is_file()) else {
            report.in_file(shown, Problem::NoCrewYaml { path: shown.to_owned() });
            return None;
        };
        let name = crew_path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let crew_shown = Path::new(shown).join(name).display().to_string();
        (crew_path, crew_shown, path.to_path_buf(), shown.to_owned())
    } else {
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let base_shown = Path::new(shown).parent().map(|p| p.display().to_string()).unwrap_or_default();
        (path.to_path_buf(), shown.to_owned(), base, base_shown)
    };

    let source = report.add_file(crew_shown.clone());
    files.push(crew_path.clone());
    let text = read_text(&crew_path, &crew_shown, source, report)?;
    let node = parse_text(source, &text, report)?;
    let crew_file = deserialize::<CrewFile>(&node, report, Context::Crew)?;
    let uses_files = crew_file.agents.iter().any(|a| matches!(**a, AgentEntry::Reference(_)));
    let layout = if uses_files { CrewLayout::Directory } else { CrewLayout::File };
    let mut agents = resolve_agents(&crew_file, Some((&base, &base_shown)), report, files);
    if let Some(spec) = spec {
        let written: Vec<&AgentFile> = agents.iter().map(|a| &a.file).collect();
        *spec = Some(spec::to_spec(&crew_file, &written));
    }
    for agent in runtime {
        let source = report.add_file(agent.name.clone());
        let Some(node) = parse_text(source, &agent.yaml, report) else { continue };
        let Some(file) = deserialize::<AgentFile>(&node, report, Context::AgentFile) else { continue };
        let entry = node.span().to_owned();
        agents.push(LoadedAgent { file, entry, listed_id: None, missing: false, runtime: true });
    }
    let mut crew = validate(&crew_file, &agents, layout, report);
    start_servers_in(&mut crew.tool_servers, &base);
    Some(crew)
}

/// The folder of the crew file or directory at `path`: where its program servers start.
pub fn crew_folder(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    }
}

/// A crew file's program servers start in the crew's folder (`base`), and a relative
/// `cwd` is taken from there, so a crew can name files beside it (`args: [notes]`)
/// wherever the app was started.
pub fn start_servers_in(servers: &mut [ToolServer], base: &Path) {
    let base = if base.as_os_str().is_empty() { Path::new(".") } else { base };
    let base = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
    for server in servers {
        if let ServerTransport::Stdio { cwd, .. } = &mut server.transport {
            let folder = match cwd.as_deref() {
                Some(cwd) => base.join(cwd),
                None => base.clone(),
            };
            *cwd = Some(folder.display().to_string());
        }
    }
}

/// Turns `agents:` entries into agents: inline ones as they are, references by
/// loading `agents/<id>.yaml` next to the crew file.
fn resolve_agents(crew_file: &CrewFile, base: Option<(&Path, &str)>, report: &mut Report, files: &mut Vec<PathBuf>) -> Vec<LoadedAgent> {
    let mut agents = Vec::new();
    for entry in &crew_file.agents {
        let span = *entry.span();
        match &**entry {
            AgentEntry::Inline(file) => {
                agents.push(LoadedAgent { file: (**file).clone(), entry: span, listed_id: None, missing: false, runtime: false })
            }
            AgentEntry::Reference(id) => {
                let listed = Spanned::new(span, id.clone());
                // An id that is not a valid id (`../secrets`) never becomes a path;
                // validation reports it.
                let usable = !id.trim().is_empty() && is_valid_agent_id(id);
                let path = base.filter(|_| usable).and_then(|(dir, _)| find_agent_path(dir, id));
                let file = match (path, base) {
                    // A file that exists but does not load has been reported already.
                    (Some(path), Some((_, shown))) => load_agent_file(&path, shown, id, report, files),
                    _ if !usable => None,
                    _ => {
                        let expected = format!("agents/{id}.yaml");
                        let problem = Problem::AgentFileMissing { agent: id.clone(), expected };
                        report.at(&span, problem, Subject::Agent { agent: id.clone() });
                        None
                    }
                };
                let missing = file.is_none();
                let file = file.unwrap_or_else(|| AgentFile { id: Some(listed.clone()), ..AgentFile::default() });
                agents.push(LoadedAgent { file, entry: span, listed_id: Some(listed), missing, runtime: false });
            }
        }
    }
    agents
}

/// `agents/<id>.yaml` (or `.yml`), else the file in `agents/` whose `id:` is `id`
/// (the Go engine keys agent files by that field, not by their names).
fn find_agent_path(dir: &Path, id: &str) -> Option<PathBuf> {
    let agents = dir.join("agents");
    [agents.join(format!("{id}.yaml")), agents.join(format!("{id}.yml"))]
        .into_iter()
        .find(|p| p.is_file())
        .or_else(|| find_agent_file_by_id(&agents, id))
}

/// Loads one agent file of a crew directory.
fn load_agent_file(path: &Path, dir_shown: &str, id: &str, report: &mut Report, files: &mut Vec<PathBuf>) -> Option<AgentFile> {
    let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let shown = Path::new(dir_shown).join("agents").join(name).display().to_string();
    let source = report.add_file(shown.clone());
    files.push(path.to_path_buf());
    let text = read_text(path, &shown, source, report)?;
    let node = parse_text(source, &text, report)?;
    let file = deserialize::<AgentFile>(&node, report, Context::AgentFile)?;
    if let Some(found) = &file.id {
        if found.as_str() != id {
            let problem = Problem::AgentFileIdMismatch { agent: id.to_owned(), found: found.to_string() };
            report.at(found.span(), problem, Subject::Agent { agent: id.to_owned() });
        }
    }
    Some(file)
}

fn find_agent_file_by_id(agents_dir: &Path, id: &str) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(agents_dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .collect();
    entries.sort();
    entries.into_iter().find(|path| {
        let mut scratch = Report::new();
        let source = scratch.add_file(String::new());
        fs::metadata(path).is_ok_and(|m| m.len() <= MAX_FILE_SIZE)
            && fs::read_to_string(path)
                .ok()
                .and_then(|text| parse_text(source, &text, &mut scratch))
                .and_then(|node| deserialize::<AgentFile>(&node, &mut scratch, Context::AgentFile))
                .and_then(|file| file.id.map(|found| found.as_str() == id))
                .unwrap_or(false)
    })
}

fn open_problem(shown: &str, error: &std::io::Error) -> Problem {
    if error.kind() == ErrorKind::NotFound {
        Problem::NotFound { path: shown.to_owned() }
    } else {
        Problem::Unreadable { path: shown.to_owned(), reason: error.to_string() }
    }
}

/// Reads a file as UTF-8 text, refusing huge, binary and empty files.
fn read_text(path: &Path, shown: &str, source: usize, report: &mut Report) -> Option<String> {
    let size = match fs::metadata(path) {
        Ok(metadata) => metadata.len(),
        Err(error) => {
            report.in_file(shown, open_problem(shown, &error));
            return None;
        }
    };
    if size > MAX_FILE_SIZE {
        report.in_file(shown, Problem::TooLarge { size: megabytes(size), limit: megabytes(MAX_FILE_SIZE) });
        return None;
    }
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            report.in_file(shown, open_problem(shown, &error));
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(error) => {
            let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
            let valid = std::str::from_utf8(valid).unwrap_or_default();
            let line = valid.matches('\n').count() as u32 + 1;
            let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
            report.at_position(source, line, column, Problem::NotUtf8);
            None
        }
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

/// True when the text holds no YAML content: blank lines, comments, document markers.
fn is_blank(text: &str) -> bool {
    text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#') || line == "---" || line == "..."
    })
}

/// Parses YAML text into a node tree with positions.
fn parse_text(source: usize, text: &str, report: &mut Report) -> Option<Node> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if is_blank(text) {
        report.at_position(source, 1, 1, Problem::Empty);
        return None;
    }
    let lines = yaml_lines(text);
    report.set_lines(source, line_lengths(text));
    // Read with each scalar's quoting kept, for what only quoting tells apart.
    let options = LoaderOptions::default().error_on_duplicate_keys(true).prevent_coercion(true);
    // The parser is not ours; a bug in it must not take the app down.
    let parsed = catch_unwind(AssertUnwindSafe(|| marked_yaml::parse_yaml_with_options(source, text, options)));
    let error = match parsed {
        Ok(Ok(mut node)) => {
            report_quoted_null_targets(&node, report);
            allow_coercion(&mut node);
            return Some(node);
        }
        Ok(Err(error)) => error,
        Err(_) => {
            report.at_position(source, 1, 1, Problem::Syntax { detail: "the YAML parser could not read this file".into() });
            return None;
        }
    };
    let (marker, problem) = match error {
        LoadError::TopLevelMustBeMapping(m) | LoadError::TopLevelMustBeSequence(m) => (m, Problem::NotAMapping),
        LoadError::UnexpectedAnchor(m) => (m, Problem::UnsupportedYaml { feature: "anchors and aliases (& and *)".into() }),
        LoadError::UnexpectedTag(m) => (m, Problem::UnsupportedYaml { feature: "tags (!)".into() }),
        LoadError::MappingKeyMustBeScalar(m) => {
            (m, Problem::Syntax { detail: "a key must be a plain value, not a list or mapping".into() })
        }
        LoadError::ScanError(m, scan) => (m, Problem::Syntax { detail: scan.info().to_owned() }),
        LoadError::DuplicateKey(inner) => {
            let first_line = inner.prev_key.span().start().map_or(0, |m| m.line() as u32);
            let marker = inner.key.span().start().copied().unwrap_or_else(|| Marker::new(source, 0, 1, 1));
            (marker, Problem::DuplicateKey { key: inner.key.as_str().to_owned(), first_line })
        }
    };
    let location = report.locate_marker(&marker);
    let (mut line, mut column) = (location.line, location.column);
    // The parser reports a tab where it noticed it: at the start of the value before
    // it, or just past it. Point at the tab itself.
    if matches!(&problem, Problem::Syntax { detail } if detail.contains("tab")) {
        if let Some(tab) = indenting_tab(&lines, line) {
            (line, column) = tab;
        }
    }
    report.at_position(source, line, column, problem);
    None
}

/// How many characters each line of a YAML text has (a byte-order mark left out, as
/// the parser leaves it out), for keeping positions inside it ([`crate::report::inside`]).
pub fn line_lengths(text: &str) -> Vec<u32> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    yaml_lines(text).iter().map(|line| line.chars().count() as u32).collect()
}

/// The lines of a text as YAML counts them: CR LF, CR and LF each end one.
fn yaml_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(end) = rest.find(['\r', '\n']) {
        lines.push(&rest[..end]);
        rest = &rest[end + if rest[end..].starts_with("\r\n") { 2 } else { 1 }..];
    }
    lines.push(rest);
    lines
}

/// The first tab in a line's indentation, from line `from` on (lines and columns from 1).
fn indenting_tab(lines: &[&str], from: u32) -> Option<(u32, u32)> {
    lines.iter().enumerate().skip(from.saturating_sub(1) as usize).find_map(|(index, line)| {
        let column = line.chars().take_while(|c| *c == ' ' || *c == '\t').position(|c| c == '\t')?;
        Some((index as u32 + 1, column as u32 + 1))
    })
}

/// Which file model a node is deserialized into (decides which extra keys are known).
#[derive(Clone, Copy, PartialEq)]
enum Context {
    Crew,
    AgentFile,
    /// Any other file (no Go-engine keys to let pass).
    Other,
}

#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
    /// A key serde could not name: the keys of `routing.signals`, `parallel_groups`
    /// and the other id-keyed sections are `Spanned`, and `serde_path_to_error` only
    /// records keys read as plain text. [`resolve_keys`] finds it in the YAML.
    AnyKey,
}

/// Marker keys that `Spanned` uses internally; they are not part of the user's path.
fn is_internal(key: &str) -> bool {
    key.starts_with("$___::")
}

fn error_segments(path: &serde_path_to_error::Path) -> Vec<Segment> {
    use serde_path_to_error::Segment as S;
    let mut out = Vec::new();
    for segment in path.iter() {
        match segment {
            S::Seq { index } => out.push(Segment::Index(*index)),
            S::Map { key } if is_internal(key) => {}
            S::Map { key } => out.push(Segment::Key(key.clone())),
            S::Enum { .. } => {}
            S::Unknown => out.push(Segment::AnyKey),
        }
    }
    out
}

/// `agents[2].temperature`
fn render(segments: &[Segment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(index) => out.push_str(&format!("[{index}]")),
            Segment::AnyKey => break,
        }
    }
    out
}

/// The node `segments` lead to, if they all resolve.
fn node_at<'a>(root: &'a Node, segments: &[Segment]) -> Option<&'a Node> {
    segments.iter().try_fold(root, |node, segment| match segment {
        Segment::Key(key) => node.as_mapping().and_then(|map| map.get(key.as_str())),
        Segment::Index(index) => node.as_sequence().and_then(|seq| seq.get(*index)),
        Segment::AnyKey => None,
    })
}

/// The span of the deepest node `segments` reaches.
fn span_at(root: &Node, segments: &[Segment]) -> Span {
    let mut node = root;
    for end in 1..=segments.len() {
        match node_at(root, &segments[..end]) {
            Some(next) => node = next,
            None => break,
        }
    }
    *node.span()
}

/// Replaces each [`Segment::AnyKey`] of an error's path with the key it stands for:
/// the entry that holds the error's position, or (for an error without one, a value
/// of the wrong kind) the first entry whose value at the rest of the path is of the
/// kind the error found — entries are read in order, and an earlier entry with that
/// kind there would have failed first. The path ends where no entry fits.
fn resolve_keys(root: &Node, segments: &[Segment], error: &marked_yaml::Error) -> Vec<Segment> {
    let mark = error.start_mark().map(|m| (m.line(), m.column()));
    let found = found_kind(error);
    let mut resolved = Vec::with_capacity(segments.len());
    for (index, segment) in segments.iter().enumerate() {
        if *segment != Segment::AnyKey {
            resolved.push(segment.clone());
            continue;
        }
        let Some(map) = node_at(root, &resolved).and_then(Node::as_mapping) else { break };
        let rest = &segments[index + 1..];
        let starts = |key: &marked_yaml::types::MarkedScalarNode| key.span().start().map(|s| (s.line(), s.column()));
        let key = match (mark, found) {
            (Some(mark), _) => map.keys().rev().find(|k| starts(k).is_some_and(|start| start <= mark)),
            (None, Some(found)) => {
                map.iter().find(|(_, value)| node_at(value, rest).is_some_and(|node| found.fits(node))).map(|(key, _)| key)
            }
            // No position and no kind (a missing field): serde reads entries in file
            // order and stops at the first error, so it is the first entry whose
            // value has the rest of the path (lacking the field, when one is missing).
            (None, None) => {
                let missing = missing_field(error);
                map.iter()
                    .find(|(_, value)| match (node_at(value, rest), missing.as_deref()) {
                        (Some(Node::Mapping(fields)), Some(field)) => fields.get(field).is_none(),
                        (Some(_), None) => true,
                        _ => false,
                    })
                    .map(|(key, _)| key)
            }
        };
        match key {
            Some(key) => resolved.push(Segment::Key(key.as_str().to_owned())),
            None => break,
        }
    }
    resolved
}

/// The field a "missing field" error names.
fn missing_field(error: &marked_yaml::Error) -> Option<String> {
    match error {
        marked_yaml::Error::Other(message, _) => message.strip_prefix("missing field `").map(|rest| rest.trim_end_matches('`').to_owned()),
        _ => None,
    }
}

/// The kind of YAML value an "invalid type" error found.
#[derive(Clone, Copy)]
enum FoundKind {
    List,
    Mapping,
    Scalar,
}

impl FoundKind {
    fn fits(self, node: &Node) -> bool {
        matches!(
            (self, node),
            (FoundKind::List, Node::Sequence(_)) | (FoundKind::Mapping, Node::Mapping(_)) | (FoundKind::Scalar, Node::Scalar(_))
        )
    }
}

fn found_kind(error: &marked_yaml::Error) -> Option<FoundKind> {
    let marked_yaml::Error::Other(message, _) = error else { return None };
    let found = message.strip_prefix("invalid type: ")?;
    Some(if found.starts_with("sequence") {
        FoundKind::List
    } else if found.starts_with("map") {
        FoundKind::Mapping
    } else {
        FoundKind::Scalar
    })
}

/// True for keys the Go engine writes that Crewgraph accepts without a warning.
fn is_known_extra(context: Context, segments: &[Segment]) -> bool {
    fn key(segment: &Segment) -> Option<&str> {
        match segment {
            Segment::Key(k) => Some(k.as_str()),
            Segment::Index(_) | Segment::AnyKey => None,
        }
    }
    match (context, segments) {
        (Context::Crew, [first, second]) if key(first) == Some("settings") => key(second).is_some_and(|k| GO_ENGINE_SETTINGS.contains(&k)),
        (Context::Crew, [first, Segment::Index(_), last]) if key(first) == Some("agents") => {
            key(last).is_some_and(|k| GO_ENGINE_AGENT_KEYS.contains(&k))
        }
        (Context::AgentFile, [only]) => key(only).is_some_and(|k| GO_ENGINE_AGENT_KEYS.contains(&k)),
        _ => false,
    }
}

/// Deserializes a node tree into a file-model type, reporting a value of the
/// wrong shape as an error at its position and unknown keys as warnings.
fn deserialize<T: DeserializeOwned + Serialize>(root: &Node, report: &mut Report, context: Context) -> Option<T> {
    let deserializer = marked_yaml::spanned_serde::NodeDeserializer::new(root);
    match serde_path_to_error::deserialize::<_, T>(deserializer) {
        Ok(value) => {
            report_unknown_keys(root, &value, context, report);
            Some(value)
        }
        Err(error) => {
            let path = error_segments(error.path());
            let inner = error.into_inner();
            let segments = resolve_keys(root, &path, &inner);
            let node_span = span_at(root, &segments);
            let span = inner.start_mark().map(Span::new_start).unwrap_or(node_span);
            let written = node_at(root, &segments).and_then(Node::as_scalar).map(|scalar| scalar.as_str());
            report.at(&span, shape_problem(&segments, &inner, written), Subject::Crew);
            None
        }
    }
}

/// Reports a rule target written as the quoted text `"null"` (or `"~"`): unquoted,
/// `null` is nothing (the run ends), but quoted it is a name, and no agent has it. The
/// file model cannot tell the two apart, so the YAML is read for them here.
fn report_quoted_null_targets(root: &Node, report: &mut Report) {
    let signals = root
        .as_mapping()
        .and_then(|crew| crew.get("routing"))
        .and_then(Node::as_mapping)
        .and_then(|routing| routing.get("signals"))
        .and_then(Node::as_mapping);
    for (agent, rules) in signals.into_iter().flat_map(|s| s.iter()) {
        for (index, rule) in rules.as_sequence().into_iter().flat_map(|r| r.iter()).enumerate() {
            let Some(rule) = rule.as_mapping() else { continue };
            let signal = rule.get("signal").and_then(Node::as_scalar).map(|s| s.as_str().to_owned()).unwrap_or_default();
            let targets: Vec<&marked_yaml::types::MarkedScalarNode> = match rule.get("target") {
                Some(Node::Scalar(target)) => vec![target],
                Some(Node::Sequence(list)) => list.iter().filter_map(Node::as_scalar).collect(),
                _ => Vec::new(),
            };
            for target in targets.into_iter().filter(|t| !t.may_coerce() && !t.trim().is_empty() && is_null(t.as_str())) {
                let problem = Problem::UnknownTarget { signal: signal.clone(), target: target.as_str().to_owned() };
                report.at(target.span(), problem, Subject::Rule { agent: agent.as_str().to_owned(), index: index as u32 });
            }
        }
    }
}

/// Lets every scalar be read as a number or a boolean again, quoted or not (`"5"`
/// is 5 in a crew file, as it always was), once quoting has told what it had to.
fn allow_coercion(root: &mut Node) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node {
            Node::Scalar(scalar) => scalar.set_coerce(true),
            Node::Mapping(mapping) => stack.extend(mapping.values_mut()),
            Node::Sequence(sequence) => stack.extend(sequence.iter_mut()),
        }
    }
}

/// Reports every key of the YAML that the file model did not take. The model is
/// serialized back (every field, set or not, becomes a key) and the two trees are
/// compared: a YAML key with no counterpart was ignored.
fn report_unknown_keys<T: Serialize>(root: &Node, value: &T, context: Context, report: &mut Report) {
    let Ok(model) = serde_json::to_value(value) else { return };
    let mut path = Vec::new();
    let mut unknown = Vec::new();
    compare(root, &model, &mut path, &mut unknown);
    for (segments, span) in unknown {
        if is_known_extra(context, &segments) {
            continue;
        }
        if let Some(Segment::Key(key)) = segments.last().cloned() {
            report.at(&span, Problem::UnknownKey { key }, Subject::Crew);
        }
    }
}

fn compare(node: &Node, model: &serde_json::Value, path: &mut Vec<Segment>, out: &mut Vec<(Vec<Segment>, Span)>) {
    use serde_json::Value;
    match (node, model) {
        (Node::Mapping(map), Value::Object(fields)) => {
            for (key, child) in map.iter() {
                path.push(Segment::Key(key.as_str().to_owned()));
                match fields.get(key.as_str()) {
                    Some(field) => compare(child, field, path, out),
                    None => out.push((path.clone(), *key.span())),
                }
                path.pop();
            }
        }
        (Node::Sequence(items), Value::Array(values)) => {
            for (index, (child, value)) in items.iter().zip(values).enumerate() {
                path.push(Segment::Index(index));
                compare(child, value, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Words for a serde error about the value at `segments`, `written` as it is when
/// it is a plain value.
fn shape_problem(segments: &[Segment], error: &marked_yaml::Error, written: Option<&str>) -> Problem {
    use marked_yaml::Error as E;
    let field = render(segments);
    let field = if field.is_empty() { "crew file".to_owned() } else { field };
    let not = written.map(|value| format!(", not '{}'", value.chars().take(60).collect::<String>())).unwrap_or_default();
    let detail = match error {
        E::NotBoolean(_) => format!("must be true or false{not}"),
        E::IntegerParseFailure(..) => format!("must be a whole number (0 or more){not}"),
        E::FloatParseFailure(..) => format!("must be a number{not}"),
        E::UnknownFieldError(key, ..) => format!("has an unknown key '{key}'"),
        E::Other(message, _) => {
            if let Some(rest) = message.strip_prefix("missing field `") {
                let missing = rest.trim_end_matches('`');
                let mut path = segments.to_vec();
                path.push(Segment::Key(missing.to_owned()));
                return Problem::MissingField { field: render(&path) };
            }
            match words::read(message) {
                Said::Wrong { expected, found } => format!("should be {expected}, not {found}"),
                Said::NotOneOf { given, allowed } => format!("'{given}' is not one of its values ({allowed})"),
                Said::NoForm => "has a form this field does not take".to_owned(),
                Said::Length { expected, found } => format!("should have {expected}, not {found}"),
                Said::Other(text) => plain_expected(&text),
            }
        }
    };
    Problem::WrongType { field, detail }
}
