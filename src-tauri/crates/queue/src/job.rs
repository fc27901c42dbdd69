//! A stream entry: which run, and what to do with it ([`Job`]), written as the
//! fields `v` (the format, `1`), `run` and `kind`. An entry is read back as a
//! [`Delivery`]; one whose fields are not a job (written by something else, or by a
//! newer Crewgraph) is a [`BadEntry`] saying what is wrong — the worker
//! acknowledges it and says so, and it never stops the queue.

use std::collections::HashMap;

use redis::Value;

/// The entry format this Crewgraph writes and reads.
pub(crate) const FORMAT: &str = "1";

/// What a worker is asked to do with a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// Execute a run just created (its first step is stored).
    Start,
    /// Go on with a paused run (the person's answer is stored with it).
    Resume,
    /// Go on after a tool call was approved or denied.
    Answer,
}

impl JobKind {
    /// How the entry names it.
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Start => "start",
            JobKind::Resume => "resume",
            JobKind::Answer => "answer",
        }
    }

    fn parse(text: &str) -> Option<JobKind> {
        [JobKind::Start, JobKind::Resume, JobKind::Answer].into_iter().find(|kind| kind.as_str() == text)
    }
}

/// One piece of work: a run, and what to do with it. The run's state is in the
/// store; the entry names it only.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Job {
    pub run_id: String,
    pub kind: JobKind,
}

impl Job {
    /// The entry's fields.
    pub(crate) fn fields(&self) -> [(&'static str, &str); 3] {
        [("v", FORMAT), ("run", self.run_id.as_str()), ("kind", self.kind.as_str())]
    }

    /// The job an entry's fields hold.
    pub(crate) fn from_fields(fields: &HashMap<String, Value>) -> Result<Job, BadEntry> {
        let text = |name: &str| match fields.get(name) {
            Some(value) => redis::from_redis_value_ref::<String>(value).ok(),
            None => None,
        };
        match text("v").as_deref() {
            Some(FORMAT) => {}
            Some(other) => return Err(BadEntry(format!("it is written in format {other}, and this Crewgraph reads format {FORMAT}"))),
            None => return Err(BadEntry("it has no format field (v): it was not written by Crewgraph".into())),
        }
        let run_id = text("run").filter(|run| !run.trim().is_empty()).ok_or_else(|| BadEntry("it names no run".into()))?;
        let kind = text("kind").ok_or_else(|| BadEntry("it says nothing of what to do".into()))?;
        let kind =
            JobKind::parse(&kind).ok_or_else(|| BadEntry(format!("'{kind}' is not something a worker does (start, resume, answer)")))?;
        Ok(Job { run_id, kind })
    }
}

/// Why an entry is not a job.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the queue entry is not a Crewgraph job: {0}")]
pub struct BadEntry(pub String);

/// A stream entry's id (`1700000000000-0`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntryId(pub String);

/// An entry handed to a worker: acknowledge it ([`crate::RedisQueue::ack`]) once the
/// run is final or paused — or once it is found to be nothing to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub id: EntryId,
    pub job: Result<Job, BadEntry>,
}

impl Delivery {
    pub(crate) fn of(entry: &redis::streams::StreamId) -> Delivery {
        Delivery { id: EntryId(entry.id.clone()), job: Job::from_fields(&entry.map) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> HashMap<String, Value> {
        pairs.iter().map(|(k, v)| (k.to_string(), Value::BulkString(v.as_bytes().to_vec()))).collect()
    }

    #[test]
    fn a_job_reads_back_from_its_fields_and_anything_else_says_what_is_wrong() {
        let job = Job { run_id: "run-7".into(), kind: JobKind::Resume };
        assert_eq!(Job::from_fields(&fields(&job.fields())), Ok(job));
        let bad = |pairs: &[(&str, &str)]| Job::from_fields(&fields(pairs)).unwrap_err().to_string();
        assert!(bad(&[("run", "r"), ("kind", "start")]).contains("not written by Crewgraph"));
        assert!(bad(&[("v", "9"), ("run", "r"), ("kind", "start")]).contains("format 9"));
        assert!(bad(&[("v", "1"), ("run", " "), ("kind", "start")]).contains("names no run"));
        assert!(bad(&[("v", "1"), ("run", "r"), ("kind", "explode")]).contains("'explode' is not something a worker does"));
    }
}
