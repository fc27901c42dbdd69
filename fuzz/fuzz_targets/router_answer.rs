//! Fuzz target `router_answer`: the body, and what it checks, is `crewgraph_fuzz::router_answer` (fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crewgraph_fuzz::router_answer(data));
