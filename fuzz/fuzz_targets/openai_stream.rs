//! Fuzz target `openai_stream`: the body, and what it checks, is `crewgraph_fuzz::openai_stream` (fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crewgraph_fuzz::openai_stream(data));
