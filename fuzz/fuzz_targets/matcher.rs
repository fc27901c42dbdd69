//! Fuzz target `matcher`: the body, and what it checks, is `crewgraph_fuzz::matcher` (fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crewgraph_fuzz::matcher(data));
