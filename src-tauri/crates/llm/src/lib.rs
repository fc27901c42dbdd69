//! # crewgraph-llm
//!
//! The model providers behind the engine's `LlmClient` trait, one file each
//! (DESIGN.md §6):
//!
//! - [`openai`]: any OpenAI-compatible endpoint (OpenAI, Ollama, LM Studio, vLLM,
//!   llama.cpp's server, OpenRouter) — chat completions streamed over server-sent
//!   events, tool calls, structured output, token usage;
//! - [`anthropic`]: the Messages API with streaming, tool use and structured output
//!   through a forced tool;
//! - [`local`]: the built-in local model (llama.cpp's server with SmolLM2, started on
//!   demand), its replies made to end with one of the agent's signals
//!   ([`grammar`]);
//! - [`scripted`]: replies taken from a YAML script, per agent, in order — Crewgraph's
//!   Simulate mode and the engine's deterministic test double;
//! - [`typed`]: Simulate mode by hand — each reply typed by the person in its turn;
//! - [`paced`]: a scripted run at a person's pace — readable, or one turn at a time.
//!
//! Around them: [`http`], the robustness the HTTP providers share (timeouts, retries
//! with backoff honouring `Retry-After`, cancellation, the provider's own error
//! message); [`chat`], a run's history as one agent's conversation; [`settings`],
//! the named models; [`window`], each model's context window; [`keys`], API keys from the OS keyring or the environment; and
//! [`models`], which answers each call with the model the agent names; [`check`],
//! what a model can do, found out by asking it; [`discover`], the model servers
//! already running on this computer.
//!
//! The engine never depends on this crate; the binaries wire a provider in.

pub mod anthropic;
pub mod chat;
pub mod check;
pub mod discover;
pub mod failure;
pub mod grammar;
pub mod http;
pub mod keys;
pub mod local;
pub mod models;
pub mod openai;
pub mod paced;
pub mod scripted;
pub mod settings;
pub mod tool_json;
pub mod typed;
pub mod window;

pub use anthropic::AnthropicClient;
pub use http::Limits;
pub use local::{LocalModel, LocalPaths, LocalServer};
pub use models::Models;
pub use openai::OpenAiClient;
pub use paced::{Pace, Paced, Stepper};
pub use scripted::{RepliesUsed, Script, ScriptError, ScriptedLlm, UsedReply};
pub use settings::{ModelConfig, ModelSettings, Price, Provider, Resolved};
pub use typed::TypedReplies;
