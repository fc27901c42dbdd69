//! # crewgraph-llm
//!
//! The model providers behind the engine's `LlmClient` trait, one file each
//! (DESIGN.md §6). This crate owns:
//!
//! - `openai`: any OpenAI-compatible endpoint (OpenAI, Ollama, LM Studio, vLLM,
//!   llama.cpp's server, OpenRouter) — chat completions streamed over server-sent
//!   events, tool calls, structured output, token usage;
//! - `anthropic`: the Messages API with streaming, tool use and structured output
//!   through a forced tool;
//! - `scripted`: replies taken from a YAML script, per agent, in order — Crewgraph's
//!   Simulate mode and the engine's deterministic test double;
//! - the robustness all providers share: connect / first-byte / idle timeouts,
//!   retries on 429 and 5xx with backoff honouring `Retry-After`, cancellation, and
//!   API keys from the OS keyring or the environment, never from crew files.
//!
//! The engine never depends on this crate; the binaries wire a provider in.
//! Implemented so far: [`scripted`].

pub mod scripted;

pub use scripted::{Script, ScriptError, ScriptedLlm};
