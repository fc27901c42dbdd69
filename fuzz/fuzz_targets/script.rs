//! Fuzz target `script`: the body, and what it checks, is `crewgraph_fuzz::script` (fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crewgraph_fuzz::script(data));
