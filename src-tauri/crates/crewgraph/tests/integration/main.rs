//! Tests of the `crewgraph` command line (DESIGN.md §10): the exact output shapes
//! and exit codes of `validate` and both forms of `match`, and `--help`. One test
//! binary; each module runs the real binary (`assert_cmd`) the way a user or a
//! script would.
//!
//! Bad crew files come from the engine's fixtures (`../engine/tests/fixtures`),
//! valid ones from the repository's `crews/`; generated inputs go to temp dirs.

mod help;
mod matching;
mod support;
mod validate;
