//! Fuzz target `loader`: the body, and what it checks, is `crewgraph_fuzz::loader` (fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| crewgraph_fuzz::loader(data));
