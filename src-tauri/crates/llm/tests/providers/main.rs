//! The providers' integration tests, one binary (STYLE.md): one conformance suite
//! every provider passes (`conformance`: the cases of the `LlmClient` seam, and the
//! HTTP faults both HTTP providers survive), what each HTTP provider alone sends
//! (`protocol`), and what only a real llama-server shows (`llama_server`, which also
//! starts the servers the real-model subjects use). `fault_server` is the loopback
//! HTTP server that answers what each case scripts.

mod conformance;
mod fault_server;
mod llama_server;
mod protocol;
mod window;
