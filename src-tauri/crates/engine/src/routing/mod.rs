//! How the next agent is chosen (DESIGN.md §5), one file per strategy, each a pure
//! function of the crew and what the last agent said: [`signals`] (the rules of
//! the agent's signals) and [`scoring`] (the supervisor's word and tag scores).

pub mod scoring;
pub mod signals;
