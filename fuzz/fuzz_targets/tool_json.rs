//! Fuzz target `tool_json`: the body, and what it checks, is `crewgraph_fuzz::tool_json` (fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crewgraph_fuzz::tool_json(data));
