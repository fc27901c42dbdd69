//! Collecting diagnostics while loading and validating: the files read so far (so a
//! YAML position, which carries a file number, becomes `file:line:col`) and the
//! problems found in them.

use marked_yaml::{Marker, Span};

use crate::diagnostic::{Diagnostic, Location, Problem, Subject};

/// The files of one crew and the problems found in them.
#[derive(Debug, Default)]
pub struct Report {
    files: Vec<String>,
    /// Per file, once its text is known: how many characters each line has.
    lines: Vec<Option<Vec<u32>>>,
    diagnostics: Vec<Diagnostic>,
    /// Where each agent names a tool of a tool server (or a tool nobody declares).
    tool_mentions: Vec<ToolMention>,
}

/// An agent's tool that a tool server may provide, and where the crew names it: what
/// a check against the running servers reports at (`Api::known_tools`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolMention {
    pub agent: String,
    /// As written: `files.read_text_file`, `files/write`, `files`, `files.*`.
    pub tool: String,
    pub location: Option<Location>,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a file under the name shown to the user; returns its number for the YAML parser.
    pub fn add_file(&mut self, name: String) -> usize {
        self.files.push(name);
        self.lines.push(None);
        self.files.len() - 1
    }

    /// Records how many characters each line of file `source` has, so no position
    /// is placed beyond its line or past the text's last line.
    pub fn set_lines(&mut self, source: usize, lengths: Vec<u32>) {
        if let Some(lines) = self.lines.get_mut(source) {
            *lines = Some(lengths);
        }
    }

    /// The file name registered as `source`.
    pub fn file_name(&self, source: usize) -> &str {
        self.files.get(source).map_or("", String::as_str)
    }

    /// The location of a YAML marker.
    pub fn locate_marker(&self, marker: &Marker) -> Location {
        let mut position = (marker.line().max(1) as u32, marker.column().max(1) as u32);
        // At the end of a text the parser can place a value or an error one line past
        // it, and after odd characters a column past its line's end: kept inside.
        if let Some(Some(lines)) = self.lines.get(marker.source()) {
            position = inside(lines, position.0, position.1);
        }
        Location { file: self.file_name(marker.source()).to_owned(), line: position.0, column: position.1 }
    }

    /// The location where a span starts, if it has one.
    pub fn locate(&self, span: &Span) -> Option<Location> {
        span.start().map(|marker| self.locate_marker(marker))
    }

    /// Reports `problem` at `span`.
    pub fn at(&mut self, span: &Span, problem: Problem, subject: Subject) {
        let location = self.locate(span);
        self.diagnostics.push(Diagnostic::new(problem, location, subject));
    }

    /// Notes that `agent` names `tool` at `span` (see [`ToolMention`]).
    pub fn mention_tool(&mut self, span: &Span, agent: &str, tool: &str) {
        let location = self.locate(span);
        self.tool_mentions.push(ToolMention { agent: agent.to_owned(), tool: tool.to_owned(), location });
    }

    /// The tool mentions noted so far, taken out.
    pub fn take_tool_mentions(&mut self) -> Vec<ToolMention> {
        std::mem::take(&mut self.tool_mentions)
    }

    /// Reports `problem` at an explicit line and column of file `source`.
    pub fn at_position(&mut self, source: usize, line: u32, column: u32, problem: Problem) {
        let location = Location { file: self.file_name(source).to_owned(), line, column };
        self.diagnostics.push(Diagnostic::new(problem, Some(location), Subject::Crew));
    }

    /// Reports a problem with a whole file (placed at its line 1, column 1).
    pub fn in_file(&mut self, file: &str, problem: Problem) {
        let location = Location { file: file.to_owned(), line: 1, column: 1 };
        self.diagnostics.push(Diagnostic::new(problem, Some(location), Subject::Crew));
    }

    /// True when an error has been reported.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// How many errors have been reported so far.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The diagnostics, ordered by file (in the order the files were read), line and column.
    pub fn finish(self) -> Vec<Diagnostic> {
        let order = |d: &Diagnostic| {
            d.location.as_ref().map(|l| {
                let file = self.files.iter().position(|f| *f == l.file).unwrap_or(usize::MAX);
                (file, l.line, l.column)
            })
        };
        let mut diagnostics = self.diagnostics.clone();
        diagnostics.sort_by_key(order);
        diagnostics
    }
}
/// `(line, column)` (from 1) kept inside a text whose lines have `lengths`
/// characters: past the last line is the end of the text, past a line's end is its
/// end.
pub fn inside(lengths: &[u32], line: u32, column: u32) -> (u32, u32) {
    let last = lengths.len().max(1) as u32;
    let length = |line: u32| lengths.get(line as usize - 1).copied().unwrap_or(0);
    let line = line.max(1);
    if line > last {
        (last, length(last) + 1)
    } else {
        (line, column.clamp(1, length(line) + 1))
    }
}
