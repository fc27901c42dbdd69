//! How the next agent is chosen (DESIGN.md §5), one file per strategy: [`signals`]
//! (the rules of the agent's signals) and [`scoring`] (the supervisor's word and tag
//! scores), each a pure function of the crew and what the last agent said; and the
//! deciders of the `llm` and `gatekeeper` strategies behind one seam,
//! [`decider::RouteDecider`], with the router model's in [`llm`] (the gatekeeper's
//! makes HTTP calls and lives with the binaries).

pub mod decider;
pub mod llm;
pub mod scoring;
pub mod signals;
