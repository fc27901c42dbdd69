//! Stepping through a run (issue 18, item 6): a run told to pause before some of its
//! agents (`breakpoints`) stops before such an agent's turn — durably, as a wait
//! for the person does (`paused {agent, breakpoint: true}`, then `run_finished`
//! `paused`) — and a resume goes on with that turn: with the person's words added
//! to the history when they give any, and with `step` to pause again before the next
//! turn, whoever has it.
//!
//! Nothing of it is kept beside the events: the agents to pause before are the
//! latest `breakpoints_set` event's, and whether a paused run waits at one is its
//! latest `paused` event's, so a run paused this way survives a restart like any
//! other. Only the run's own turns stop (its current agent's); a parallel group's
//! members and a broadcast's targets work on.

use super::driver::Run;
use super::event::{EventKind, RunEvent};
use crate::ids::AgentId;

/// What a run start or a resume asks of stepping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breaks {
    /// The agents to pause before; None keeps the run's (a resume), Some(empty) clears them.
    pub before: Option<Vec<AgentId>>,
    /// Go on for one turn, then pause before the next.
    pub step: bool,
}

/// The agents a run pauses before, as its events last set them.
pub fn set_in(events: &[RunEvent]) -> Vec<AgentId> {
    events
        .iter()
        .rev()
        .find_map(|e| if let EventKind::BreakpointsSet { agents } = &e.kind { Some(agents.clone()) } else { None })
        .unwrap_or_default()
}

/// Whether the run's latest pause was before an agent's turn (not a wait for an
/// answer, a signal's pause or a tool call's approval).
pub fn held(events: &[RunEvent]) -> bool {
    events
        .iter()
        .rev()
        .find_map(|e| if let EventKind::Paused { breakpoint, .. } = &e.kind { Some(*breakpoint) } else { None })
        .unwrap_or(false)
}

impl Run<'_> {
    /// Whether the run pauses before its current agent's turn now: a breakpoint on
    /// it, or one turn stepped — unless it was just resumed from that very pause.
    pub(crate) fn holds_here(&mut self) -> bool {
        let released = std::mem::take(&mut self.released);
        let due = std::mem::take(&mut self.step_due) || self.breakpoints.contains(&self.snapshot.current_agent);
        due && !released
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(kinds: Vec<EventKind>) -> Vec<RunEvent> {
        crate::run::event::numbered(kinds)
    }

    #[test]
    fn the_latest_setting_and_pause_count() {
        let a = AgentId::from("teacher");
        let stored = events(vec![
            EventKind::BreakpointsSet { agents: vec![a.clone()] },
            EventKind::Paused { agent: a.clone(), signal: None, breakpoint: true },
        ]);
        assert_eq!((set_in(&stored), held(&stored)), (vec![a.clone()], true));
        let later = events(vec![
            EventKind::BreakpointsSet { agents: vec![a.clone()] },
            EventKind::Paused { agent: a.clone(), signal: None, breakpoint: true },
            EventKind::BreakpointsSet { agents: vec![] },
            EventKind::Paused { agent: a, signal: None, breakpoint: false },
        ]);
        assert_eq!((set_in(&later), held(&later)), (vec![], false));
        assert_eq!((set_in(&[]), held(&[])), (vec![], false));
    }
}
