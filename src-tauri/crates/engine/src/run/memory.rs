//! A [`RunStore`] in memory: for tests about logic rather than storage, and for
//! runs nobody wants to keep. It checks steps exactly as the SQLite store does.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use super::event::{RunEvent, RunStatus};
use super::lease::{self, Lease, LeaseOutcome};
use super::message::Message;
use super::seen::AgentContext;
use super::store::{RunRecord, RunSnapshot, RunStore, RunSummary, StepRecord, StoreError, StoredRun};
use super::time::{Clock, SystemClock};
use crate::ids::RunId;

#[derive(Debug)]
struct Entry {
    record: RunRecord,
    snapshot: RunSnapshot,
    history: Vec<Message>,
    events: Vec<RunEvent>,
    contexts: Vec<AgentContext>,
    /// Who executes the run, until when (the system clock).
    lease: Option<Lease>,
    /// How its latest queued leg is to be executed.
    options: Option<String>,
}

/// Runs kept in memory for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    runs: Mutex<(Vec<RunId>, HashMap<RunId, Entry>)>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Vec<RunId>, &mut HashMap<RunId, Entry>) -> T) -> T {
        let mut guard = self.runs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (order, runs) = &mut *guard;
        f(order, runs)
    }
}

/// Checks that `step` continues what is stored: `seq` and history without gaps.
pub fn check_continues(id: &RunId, next_seq: u64, history_len: u32, step: &StepRecord) -> Result<(), StoreError> {
    let out_of_order = |detail: String| StoreError::OutOfOrder { run: id.clone(), detail };
    for (i, event) in step.events.iter().enumerate() {
        let expected = next_seq + i as u64;
        if event.seq != expected || event.run_id != *id {
            return Err(out_of_order(format!("event seq {} of run '{}' where seq {expected} was due", event.seq, event.run_id)));
        }
    }
    let events_end = next_seq + step.events.len() as u64;
    if step.snapshot.next_seq != events_end {
        return Err(out_of_order(format!("snapshot says next seq {}, the events end at {events_end}", step.snapshot.next_seq)));
    }
    let history_end = history_len + step.history.len() as u32;
    if step.snapshot.history_len != history_end {
        return Err(out_of_order(format!(
            "snapshot says {} history entries, the store will have {history_end}",
            step.snapshot.history_len
        )));
    }
    Ok(())
}

#[async_trait]
impl RunStore for MemoryStore {
    async fn create_run(&self, record: &RunRecord, first: &StepRecord) -> Result<(), StoreError> {
        check_continues(&record.id, 0, 0, first)?;
        self.with(|order, runs| {
            if runs.contains_key(&record.id) {
                return Err(StoreError::AlreadyExists(record.id.clone()));
            }
            order.push(record.id.clone());
            runs.insert(
                record.id.clone(),
                Entry {
                    record: record.clone(),
                    snapshot: first.snapshot.clone(),
                    history: first.history.clone(),
                    events: first.events.clone(),
                    contexts: first.contexts.clone(),
                    lease: None,
                    options: first.options.clone(),
                },
            );
            Ok(())
        })
    }

    async fn append_step(&self, step: &StepRecord) -> Result<(), StoreError> {
        self.with(|_, runs| {
            let entry = runs.get_mut(&step.run_id).ok_or_else(|| StoreError::NoSuchRun(step.run_id.clone()))?;
            check_continues(&step.run_id, entry.snapshot.next_seq, entry.history.len() as u32, step)?;
            entry.events.extend(step.events.iter().cloned());
            entry.history.extend(step.history.iter().cloned());
            entry.contexts.extend(step.contexts.iter().cloned());
            entry.snapshot = step.snapshot.clone();
            if step.options.is_some() {
                entry.options = step.options.clone();
            }
            Ok(())
        })
    }

    async fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        Ok(self.with(|_, runs| {
            runs.get(id).map(|e| StoredRun {
                record: e.record.clone(),
                snapshot: e.snapshot.clone(),
                history: e.history.clone(),
                options: e.options.clone(),
            })
        }))
    }

    async fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let mut summaries: Vec<RunSummary> = self.with(|order, runs| {
            order
                .iter()
                .rev()
                .filter_map(|id| runs.get(id))
                .map(|e| RunSummary {
                    id: e.record.id.clone(),
                    crew_name: e.record.crew_name.clone(),
                    crew_path: e.record.crew_path.clone(),
                    input: e.record.input.clone(),
                    status: e.snapshot.status,
                    created_at: e.record.created_at,
                    updated_at: e.snapshot.updated_at,
                    steps: e.snapshot.steps,
                    handoffs: e.snapshot.handoffs,
                    error: e.snapshot.error.clone(),
                    tokens: e.snapshot.tokens,
                    // This store keeps no crew revisions.
                    crew_revision: None,
                    forked_from: e.record.forked_from.clone(),
                })
                .collect()
        });
        // Newest by creation time; runs created in the same millisecond, last stored first.
        summaries.sort_by_key(|s| std::cmp::Reverse(s.created_at));
        Ok(summaries)
    }

    async fn events(&self, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, StoreError> {
        self.with(|_, runs| {
            let entry = runs.get(id).ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
            Ok(entry.events.iter().filter(|e| after.is_none_or(|a| e.seq > a)).cloned().collect())
        })
    }

    async fn contexts(&self, id: &RunId) -> Result<Option<Vec<AgentContext>>, StoreError> {
        self.with(|_, runs| Ok(Some(runs.get(id).ok_or_else(|| StoreError::NoSuchRun(id.clone()))?.contexts.clone())))
    }

    async fn lease(&self, id: &RunId, owner: &str, ttl: Duration) -> Result<LeaseOutcome, StoreError> {
        // Decided and written under the store's lock: one answer per moment.
        self.with(|_, runs| {
            let entry = runs.get_mut(id).ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
            let outcome = lease::decide(entry.lease.as_ref(), owner, SystemClock.now(), ttl);
            if let LeaseOutcome::Granted(granted) = &outcome {
                entry.lease = Some(granted.clone());
            }
            Ok(outcome)
        })
    }

    async fn release(&self, id: &RunId, owner: &str) -> Result<bool, StoreError> {
        self.with(|_, runs| {
            let entry = runs.get_mut(id).ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
            if entry.lease.as_ref().is_some_and(|held| held.owner == owner) {
                entry.lease = None;
                return Ok(true);
            }
            Ok(false)
        })
    }

    async fn runnable(&self) -> Result<Vec<RunId>, StoreError> {
        let now = SystemClock.now();
        Ok(self.with(|order, runs| {
            let mut runnable: Vec<&Entry> = order
                .iter()
                .filter_map(|id| runs.get(id))
                .filter(|e| e.snapshot.status == RunStatus::Running && e.options.is_some())
                .filter(|e| e.lease.as_ref().is_none_or(|held| held.expires_at <= now))
                .collect();
            // Oldest first; runs created in the same millisecond in the order they were stored.
            runnable.sort_by_key(|e| e.record.created_at);
            runnable.into_iter().map(|e| e.record.id.clone()).collect()
        }))
    }

    async fn claim(&self, id: &RunId, from: &[RunStatus]) -> Result<bool, StoreError> {
        self.with(|_, runs| {
            let entry = runs.get_mut(id).ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
            if from.contains(&entry.snapshot.status) {
                entry.snapshot.status = RunStatus::Running;
                Ok(true)
            } else {
                Ok(false)
            }
        })
    }
}
