//! A run's shared history as one agent's conversation with its model, before a
//! provider puts it on the wire. The history holds every agent's replies; the agent
//! speaking sees its own replies (and its own tool calls and their results) as its
//! turns, and everything else — the person's messages, the run's reminders and the
//! other agents' replies, each headed by who wrote it — as the other side's.
//! Consecutive turns of one side are merged (Anthropic requires turns to alternate),
//! and a conversation always ends on the other side's turn.

use crewgraph_engine::run::{LlmRequest, Message, Role, ToolCall};

/// One turn of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Turn {
    /// The other side: the person, the run, other agents.
    User(String),
    /// The agent itself: its text and the tools it asked for.
    Assistant { text: String, tool_calls: Vec<ToolCall> },
    /// The results of the agent's tool calls: `(call id, result)`.
    ToolResults(Vec<(String, String)>),
}

/// The conversation `request`'s agent has with its model.
pub fn conversation(request: &LlmRequest<'_>) -> Vec<Turn> {
    let me = request.agent;
    let mut turns: Vec<Turn> = Vec::new();
    for message in request.messages.iter() {
        let mine = message.agent.as_ref() == Some(me);
        match (message.role, mine) {
            (Role::Agent, true) => push_assistant(&mut turns, message),
            (Role::Tool, true) => {
                let result = (message.tool_call_id.clone().unwrap_or_default(), message.content.clone());
                match turns.last_mut() {
                    Some(Turn::ToolResults(results)) => results.push(result),
                    _ => turns.push(Turn::ToolResults(vec![result])),
                }
            }
            // Another agent's tool results belong to calls this agent never made.
            (Role::Tool, false) => {}
            (Role::Agent, false) => {
                if !message.content.trim().is_empty() {
                    let who = message.agent.as_ref().map_or("another agent", |a| a.as_str());
                    push_user(&mut turns, format!("{who}: {}", message.content));
                }
            }
            (Role::User, _) => push_user(&mut turns, message.content.clone()),
        }
    }
    match turns.last() {
        Some(Turn::User(_) | Turn::ToolResults(_)) => {}
        // The agent spoke last (it is called again, or nothing was said yet).
        _ => push_user(&mut turns, "Continue.".to_owned()),
    }
    turns
}

/// A tool call's arguments as a model streamed them: JSON text, where nothing at
/// all means no arguments (`{}`).
pub fn tool_arguments(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(text)
}

fn push_user(turns: &mut Vec<Turn>, text: String) {
    match turns.last_mut() {
        Some(Turn::User(previous)) => {
            previous.push_str("\n\n");
            previous.push_str(&text);
        }
        _ => turns.push(Turn::User(text)),
    }
}

fn push_assistant(turns: &mut Vec<Turn>, message: &Message) {
    if let Some(Turn::Assistant { text, tool_calls }) = turns.last_mut() {
        if tool_calls.is_empty() {
            if !text.is_empty() && !message.content.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&message.content);
            tool_calls.extend(message.tool_calls.iter().cloned());
            return;
        }
    }
    turns.push(Turn::Assistant { text: message.content.clone(), tool_calls: message.tool_calls.clone() });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::run::history::Visible;
    use crewgraph_engine::AgentId;

    #[test]
    fn the_speaker_sees_its_own_turns_and_everyone_else_as_the_other_side() {
        let teacher = AgentId::from("teacher");
        let student = AgentId::from("student");
        let call = ToolCall { id: "c1".into(), name: "current_time".into(), arguments: serde_json::json!({}) };
        let mut asked = Message::agent(&teacher, "Let me check.");
        asked.tool_calls = vec![call.clone()];
        let history = vec![
            Message::user("Start the exam"),
            asked,
            Message::tool(&teacher, &call, "12:00"),
            Message::agent(&teacher, "Question: 1+1? [QUESTION]"),
            Message::agent(&student, "2 [ANSWER]"),
            Message::user("(reminder)"),
        ];
        let request = LlmRequest::new(&teacher, "", Visible::all(&history));
        assert_eq!(
            conversation(&request),
            vec![
                Turn::User("Start the exam".into()),
                Turn::Assistant { text: "Let me check.".into(), tool_calls: vec![call] },
                Turn::ToolResults(vec![("c1".into(), "12:00".into())]),
                Turn::Assistant { text: "Question: 1+1? [QUESTION]".into(), tool_calls: vec![] },
                Turn::User("student: 2 [ANSWER]\n\n(reminder)".into()),
            ]
        );
        let request = LlmRequest::new(&student, "", Visible::all(&history));
        assert_eq!(
            conversation(&request),
            vec![
                Turn::User("Start the exam\n\nteacher: Let me check.\n\nteacher: Question: 1+1? [QUESTION]".into()),
                Turn::Assistant { text: "2 [ANSWER]".into(), tool_calls: vec![] },
                Turn::User("(reminder)".into()),
            ],
            "the student sees neither the teacher's tool calls nor their results"
        );
    }

    #[test]
    fn a_conversation_never_ends_on_the_agents_own_turn() {
        let me = AgentId::from("a");
        let history = vec![Message::user("hi"), Message::agent(&me, "hello")];
        let turns = conversation(&LlmRequest::new(&me, "", Visible::all(&history)));
        assert_eq!(turns.last(), Some(&Turn::User("Continue.".into())));
        assert_eq!(conversation(&LlmRequest::new(&me, "", Visible::all(&[]))), vec![Turn::User("Continue.".into())]);
    }
}
