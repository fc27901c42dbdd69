//! A probes file: requests to run a crew on a real model with, each optionally
//! with what should come of it — the agent that has the last word, how the run ends
//! — and how many times to run it. Read with the engine's YAML loading, so every
//! problem is reported at `file:line:col` in plain words, all of them at once.
//!
//! ```yaml
//! probes:
//!   - Start the exam                        # a request alone
//!   - input: Ask me one question, then stop
//!     final_agent: teacher                  # the agent with the last word
//!     status: terminated                    # how the run ends
//!     repeat: 3                             # run it 3 times (default 1, at most 20)
//! ```

use std::fmt;

use marked_yaml::Spanned;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::crew::Crew;
use crate::diagnostic::{Location, Problem};
use crate::ids::AgentId;
use crate::load::{line_lengths, parse_yaml};
use crate::run::event::RunStatus;

/// The most times one probe may be run.
pub const MAX_REPEAT: u32 = 20;

/// One request to try, and what should come of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub input: String,
    /// The agent that should have the last word.
    pub final_agent: Option<AgentId>,
    /// How the run should end.
    pub status: Option<RunStatus>,
    /// How many times to run it.
    pub repeat: u32,
    /// Where it is in the file.
    pub location: Location,
}

/// A problem with a probes file, at its place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct ProbeError {
    pub location: Location,
    pub message: String,
}

#[derive(Deserialize, Serialize)]
struct ProbesFile {
    probes: Vec<Spanned<ProbeEntry>>,
}

/// A probe as written: a request alone, or a mapping.
#[derive(Serialize)]
#[serde(untagged)]
enum ProbeEntry {
    Text(String),
    Map(Box<ProbeMap>),
}

#[derive(Deserialize, Serialize)]
struct ProbeMap {
    input: Spanned<String>,
    final_agent: Option<Spanned<String>>,
    status: Option<Spanned<String>>,
    repeat: Option<Spanned<u32>>,
}

impl<'de> Deserialize<'de> for ProbeEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = ProbeEntry;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a request, or a mapping with input, final_agent, status and repeat")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(ProbeEntry::Text(text.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Ok(ProbeEntry::Map(Box::new(ProbeMap::deserialize(de::value::MapAccessDeserializer::new(map))?)))
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

/// The statuses a probe may expect, as written.
const STATUSES: [RunStatus; 7] = [
    RunStatus::Terminated,
    RunStatus::Completed,
    RunStatus::Paused,
    RunStatus::MaxHandoffs,
    RunStatus::NoRoute,
    RunStatus::SignalFailure,
    RunStatus::LoopDetected,
];

/// Reads probes `text` (named `file` in problems) for `crew`. Every problem is
/// returned, each at its line and column.
pub fn read_probes(file: &str, text: &str, crew: &Crew) -> Result<Vec<Probe>, Vec<ProbeError>> {
    let at = |line: u32, column: u32| Location { file: file.to_owned(), line, column };
    if text.trim().is_empty() {
        return Err(vec![ProbeError {
            location: at(1, 1),
            message: "the probes file is empty: write `probes:` and under it one request per line, each after `- `".into(),
        }]);
    }
    let (parsed, problems) = parse_yaml::<ProbesFile>(file, text);
    // Unknown keys are errors here (a misspelt `final_agnet:` would check nothing),
    // reported with the rest; a file that does not read stops here.
    let mut errors: Vec<ProbeError> = problems
        .iter()
        .filter(|d| d.is_error() || matches!(d.problem, Problem::UnknownKey { .. }))
        .map(|d| ProbeError { location: d.location.clone().unwrap_or_else(|| at(1, 1)), message: words(&d.problem, &d.plain) })
        .collect();
    let Some(parsed) = parsed else {
        if errors.is_empty() {
            errors.push(ProbeError { location: at(1, 1), message: "this is not a probes file".into() });
        }
        return Err(errors);
    };
    let lines = line_lengths(text);
    let place = |marker: Option<&marked_yaml::Marker>| {
        let (line, column) = marker.map_or((1, 1), |m| crate::report::inside(&lines, m.line() as u32, m.column() as u32));
        at(line, column)
    };
    let mut probes = Vec::new();
    if parsed.probes.is_empty() {
        errors.push(ProbeError { location: at(1, 1), message: "there are no probes: list at least one request under `probes:`".into() });
    }
    for entry in parsed.probes {
        // A mapping is placed at its request.
        let location = match &*entry {
            ProbeEntry::Map(map) => place(map.input.span().start()),
            ProbeEntry::Text(_) => place(entry.span().start()),
        };
        let mut probe = Probe { input: String::new(), final_agent: None, status: None, repeat: 1, location: location.clone() };
        match &*entry {
            ProbeEntry::Text(input) => probe.input = input.clone(),
            ProbeEntry::Map(map) => {
                probe.input = map.input.as_str().to_owned();
                if let Some(agent) = &map.final_agent {
                    match crew.agent(agent.as_str()) {
                        Some(found) => probe.final_agent = Some(found.id.clone()),
                        None => errors.push(ProbeError {
                            location: place(agent.span().start()),
                            message: format!(
                                "'{}' is not an agent of this crew, so no run can end with it (the agents: {})",
                                agent.as_str(),
                                crew.agents.iter().map(|a| a.id.as_str()).collect::<Vec<_>>().join(", ")
                            ),
                        }),
                    }
                }
                if let Some(status) = &map.status {
                    match STATUSES.into_iter().find(|s| s.as_str() == status.as_str().trim()) {
                        Some(found) => probe.status = Some(found),
                        None => errors.push(ProbeError {
                            location: place(status.span().start()),
                            message: format!(
                                "'{}' is not how a run can end; write one of: {}",
                                status.as_str(),
                                STATUSES.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                            ),
                        }),
                    }
                }
                if let Some(repeat) = &map.repeat {
                    let n = **repeat;
                    if (1..=MAX_REPEAT).contains(&n) {
                        probe.repeat = n;
                    } else {
                        errors.push(ProbeError {
                            location: place(repeat.span().start()),
                            message: format!("repeat is {n}; a probe runs from 1 to {MAX_REPEAT} times"),
                        });
                    }
                }
            }
        }
        if probe.input.trim().is_empty() {
            errors.push(ProbeError { location, message: "this probe's request is empty: write what the crew is asked to do".into() });
            continue;
        }
        probes.push(probe);
    }
    if errors.is_empty() {
        Ok(probes)
    } else {
        errors.sort_by(|a, b| a.location.cmp(&b.location));
        Err(errors)
    }
}

/// A loading problem in words about probes (the crew-file wording says "crew").
fn words(problem: &Problem, plain: &str) -> String {
    match problem {
        Problem::UnknownKey { key } => {
            format!(
                "'{key}' is not something a probe can say: a probe is a request, or a mapping with input, final_agent, status and repeat"
            )
        }
        Problem::NotAMapping => "a probes file starts with `probes:` and lists the requests under it".into(),
        Problem::MissingField { field } if field.ends_with("input") => "this probe has no `input:` (the request to run)".into(),
        Problem::MissingField { field } => format!("'{field}' is missing: a probes file starts with `probes:`"),
        Problem::WrongType { field, detail } => format!("'{field}' {detail}"),
        Problem::Syntax { .. } | Problem::DuplicateKey { .. } | Problem::UnsupportedYaml { .. } => {
            plain.replace("Crew files", "Probes files").replace("crew files", "probes files")
        }
        _ => plain.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    fn crew() -> Crew {
        load_str("c.yaml", "entry_point: a\nagents: [{id: a, is_terminal: true}, {id: b}]\n").crew.unwrap()
    }

    #[test]
    fn requests_alone_or_with_what_should_come_of_them() {
        let text = "probes:\n  - Hello there\n  - input: Bye\n    final_agent: a\n    status: completed\n    repeat: 3\n";
        let probes = read_probes("p.yaml", text, &crew()).unwrap();
        assert_eq!(probes.len(), 2);
        assert_eq!((probes[0].input.as_str(), probes[0].repeat, probes[0].location.line), ("Hello there", 1, 2));
        assert_eq!(probes[1].final_agent.as_deref(), Some("a"));
        assert_eq!(probes[1].status, Some(RunStatus::Completed));
        assert_eq!((probes[1].repeat, probes[1].location.line, probes[1].location.column), (3, 3, 12));
    }

    #[test]
    fn every_problem_is_reported_at_its_place() {
        let text = "probes:\n  - input: Hi\n    final_agent: ghost\n    status: done\n    repeat: 99\n  - input: '  '\n";
        let errors = read_probes("p.yaml", text, &crew()).unwrap_err();
        let at: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(at.len(), 4, "{at:#?}");
        assert!(at[0].starts_with("p.yaml:3:18: 'ghost' is not an agent of this crew"), "{at:#?}");
        assert!(at[1].starts_with("p.yaml:4:13: 'done' is not how a run can end; write one of: terminated,"), "{at:#?}");
        assert_eq!(at[2], "p.yaml:5:13: repeat is 99; a probe runs from 1 to 20 times");
        assert_eq!(at[3], "p.yaml:6:12: this probe's request is empty: write what the crew is asked to do");
        let unknown = read_probes("p.yaml", "probes:\n  - input: Hi\n    expect: x\n    status: done\n", &crew()).unwrap_err();
        assert!(unknown[0].to_string().starts_with("p.yaml:3:5: 'expect' is not something a probe can say"), "{unknown:?}");
        assert!(unknown[1].to_string().starts_with("p.yaml:4:13: 'done' is not how"), "reported together: {unknown:?}");
        let broken = read_probes("p.yaml", "probes:\n  - input: \"Hi\n", &crew()).unwrap_err();
        assert_eq!(broken[0].location.line, 2, "{broken:?}");
    }
}
