//! Signals: the words in square brackets (`[QUESTION]`) or the line patterns
//! (`READY_FOR_REVIEW: 42`) with which an agent's reply says where the work goes next.
//!
//! - [`name`] decides what a signal name may look like and how text is folded and
//!   normalized for matching (DESIGN.md §3).
//! - [`registry`] holds a crew's signals ([`SignalDef`]): behaviour, who may emit
//!   them, valid targets, priority, deprecation; the built-in signals live there too.
//! - [`matcher`] compiles a registry once ([`SignalMatcher`]) and scans a reply once
//!   for all of its signals, reporting for each the level it matched at, where, and
//!   a pattern signal's payload.
//! - [`near_miss`] says, for a reply none of whose signals routed, what came close
//!   (a misspelling, the words without brackets, another agent's signal).
//!
//! ```
//! use crewgraph_engine::signal::{match_signal, MatchLevel};
//! assert_eq!(match_signal("[KẾT_THÚC]", "Xong. [ Kết  Thúc ]").unwrap(), MatchLevel::Normalized);
//! assert_eq!(match_signal("[END]", "Done. [end]").unwrap(), MatchLevel::CaseInsensitive);
//! ```

pub mod matcher;
pub mod name;
pub mod near_miss;
pub mod registry;

pub use matcher::{match_signal, MatchLevel, ReplyMatches, SignalMatch, SignalMatcher};
pub use near_miss::{near_misses, MissKind, NearMiss};
pub use registry::{Behavior, SignalDef, SignalIndex, SignalOrigin, SignalRegistry};
