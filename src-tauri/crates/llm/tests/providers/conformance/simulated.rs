//! The providers without a model: [`ScriptedLlm`] (Simulate mode, replies from a
//! script, streamed word by word) and [`TypedReplies`] (Simulate mode by hand, each
//! reply typed whole by the person). Both answer exactly what they are given, so
//! their replies are checked to the letter.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::AgentId;
use crewgraph_llm::{Script, ScriptedLlm, TypedReplies};
use serde_json::{json, Value};

use super::{conformance, Case, Primed, Subject};
use super::{CUT_RECEIVED, PLAIN_REPLY, STREAMED_PIECES, TOOL_ANSWER, TOOL_EXPRESSION};

/// What `error:` a scripted reply fails with after its text, standing for a stream cut short.
const BROKE_OFF: &str = "the stream broke off";

/// [`ScriptedLlm`] playing a script written for each case.
pub struct Scripted;

impl Scripted {
    /// The script's `replies:` for `case`.
    fn replies(case: Case) -> Value {
        match case {
            Case::Plain | Case::RetryAfter => json!({"writer": [PLAIN_REPLY]}),
            Case::Streamed => json!({"writer": [STREAMED_PIECES.concat()]}),
            Case::ToolCallRoundTrip => json!({"accountant": [
                {"content": "", "tool_calls": [{"name": "calculator", "arguments": {"expression": TOOL_EXPRESSION}}]},
                TOOL_ANSWER,
            ]}),
            Case::StructuredOutput => json!({"router": [super::structured_answer().to_string()]}),
            // A thousand words over 200 s: the first comes after 0.2 s, and the
            // call is cancelled there, mid-reply.
            Case::Cancellation => json!({"writer": [{"content": "word ".repeat(1000), "delay_ms": 200_000}]}),
            Case::CutStream => json!({"writer": [{"content": CUT_RECEIVED, "error": BROKE_OFF}]}),
        }
    }
}

#[async_trait]
impl Subject for Scripted {
    async fn prime(&self, case: Case) -> Primed {
        // YAML reads JSON as it is.
        let text = json!({"replies": Scripted::replies(case)}).to_string();
        let script = Script::parse("conformance.yaml", &text).unwrap_or_else(|e| panic!("the case's script: {e}"));
        let mut primed = Primed::new(Arc::new(ScriptedLlm::new(&script)), true);
        primed.failure_words = Some(format!("scripted: {BROKE_OFF}"));
        primed
    }
}

/// [`TypedReplies`] with the case's reply typed before the turn comes.
pub struct Typed;

#[async_trait]
impl Subject for Typed {
    async fn prime(&self, case: Case) -> Primed {
        let replies = TypedReplies::new();
        if case == Case::Plain {
            replies.reply(&AgentId::from("writer"), PLAIN_REPLY);
        }
        let mut primed = Primed::new(Arc::new(replies), true);
        // Nobody types the story: the turn waits, and is cancelled while it waits.
        primed.cancel_after = Some(Duration::from_millis(200));
        primed
    }
}

conformance! { scripted = Scripted;
    plain, streamed, tool_call_round_trip, structured_output, cancellation,
    retry_after: "a script has no server that could ask it to wait",
    cut_stream,
}

conformance! { typed = Typed;
    plain,
    streamed: "a typed reply arrives whole, as one piece (the plain case checks that piece is the reply)",
    tool_call_round_trip: "a person types text: a typed reply calls no tools",
    structured_output: "no schema holds what a person types: the text is passed on as typed",
    cancellation,
    retry_after: "there is no server: the reply comes from the person",
    cut_stream: "a typed reply arrives whole: there is no stream to cut",
}
