//! Collecting diagnostics while loading and validating: the files read so far (so a
//! YAML position, which carries a file number, becomes `file:line:col`) and the
//! problems found in them.

use marked_yaml::{Marker, Span};

use crate::diagnostic::{Diagnostic, Location, Problem, Subject};

/// The files of one crew and the problems found in them.
#[derive(Debug, Default)]
pub struct Report {
    files: Vec<String>,
    /// Per file, once its text is known: the position just past its last character.
    ends: Vec<Option<(u32, u32)>>,
    diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a file under the name shown to the user; returns its number for the YAML parser.
    pub fn add_file(&mut self, name: String) -> usize {
        self.files.push(name);
        self.ends.push(None);
        self.files.len() - 1
    }

    /// Records where file `source`'s text ends (line and column just past its last
    /// character), so no position is placed beyond it.
    pub fn set_end(&mut self, source: usize, line: u32, column: u32) {
        if let Some(end) = self.ends.get_mut(source) {
            *end = Some((line, column));
        }
    }

    /// The file name registered as `source`.
    pub fn file_name(&self, source: usize) -> &str {
        self.files.get(source).map_or("", String::as_str)
    }

    /// The location of a YAML marker.
    pub fn locate_marker(&self, marker: &Marker) -> Location {
        let mut position = (marker.line().max(1) as u32, marker.column().max(1) as u32);
        // At the end of a text the parser can place a value or an error one line past it.
        if let Some(Some(end)) = self.ends.get(marker.source()) {
            position = position.min(*end);
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
