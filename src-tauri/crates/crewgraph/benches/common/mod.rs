//! What the run benchmarks share: a two-agent crew that hands the work back and
//! forth, and scripted replies for it.

use std::sync::Arc;

use crewgraph_engine::load::load_str;
use crewgraph_engine::run::{Clock, EventSink, IdSource, NullSink, RandomIds, RunDeps, RunStore, SystemClock};
use crewgraph_engine::Crew;
use crewgraph_llm::{Script, ScriptedLlm};

/// Two agents passing the work on [NEXT]; `a` ends it with [DONE].
pub fn ping_pong(max_handoffs: u32) -> Crew {
    let yaml = format!(
        "name: Ping pong\nentry_point: a\nmax_handoffs: {max_handoffs}\nsignals: []\nagents:\n  - {{ id: a }}\n  - {{ id: b }}\n\
         routing:\n  signals:\n    a:\n      - {{ signal: \"[NEXT]\", target: b }}\n      - {{ signal: \"[DONE]\", target: \"\" }}\n    b:\n      - {{ signal: \"[NEXT]\", target: a }}\n"
    );
    load_str("ping-pong.yaml", &yaml).crew.expect("the bench crew is valid")
}

/// A script for `handoffs` transfers then the end: replies of `reply_bytes` bytes
/// (padding, then the signal), each taking `delay_ms`.
pub fn script(handoffs: usize, reply_bytes: usize, delay_ms: u64) -> Script {
    let reply = |signal: &str| {
        let pad = reply_bytes.saturating_sub(signal.len() + 1);
        format!("{} {signal}", "x".repeat(pad.max(1)))
    };
    let entry = |text: String| format!("    - {{ content: {}, delay_ms: {delay_ms} }}\n", serde_json::to_string(&text).expect("json"));
    let (mut a, mut b) = (String::new(), String::new());
    for turn in 0..handoffs {
        if turn % 2 == 0 {
            a.push_str(&entry(reply("[NEXT]")))
        } else {
            b.push_str(&entry(reply("[NEXT]")))
        }
    }
    let last = entry(reply("[DONE]"));
    if handoffs.is_multiple_of(2) {
        a.push_str(&last)
    } else {
        b.push_str(&last.replace("[DONE]", "[NEXT]"));
        a.push_str(&entry(reply("[DONE]")))
    }
    Script::parse("bench.yaml", &format!("replies:\n  a:\n{a}  b:\n{}", if b.is_empty() { "    []\n".into() } else { b }))
        .expect("bench script")
}

/// Run wiring with the system clock, random ids and no live sink.
pub fn deps(script: &Script, store: Arc<dyn RunStore>) -> RunDeps {
    deps_with_sink(script, store, Arc::new(NullSink))
}

/// [`deps`] with a sink of the bench's own.
pub fn deps_with_sink(script: &Script, store: Arc<dyn RunStore>, sink: Arc<dyn EventSink>) -> RunDeps {
    RunDeps {
        llm: Arc::new(ScriptedLlm::new(script)),
        store,
        sink,
        clock: Arc::new(SystemClock) as Arc<dyn Clock>,
        ids: Arc::new(RandomIds) as Arc<dyn IdSource>,
        http: None,
        tool_host: None,
        approvals: Default::default(),
        notices: Vec::new(),
        gatekeeper: None,
        breaks: Default::default(),
        fork: None,
        executor: None,
    }
}
