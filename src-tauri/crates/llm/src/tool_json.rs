//! Tools on a model that has no tool calling of its own (the built-in local model:
//! SmolLM2's chat template has no tool format), offered through structured output
//! (`docs/tools.md`). The model is told the tools and held by a GBNF grammar
//! (llama.cpp's constrained decoding) to answer with one JSON object: either
//! `{"tool": NAME, "arguments": {…}}` — a name of the offered tools, and arguments
//! of the shape its JSON schema gives where the schema is simple enough to say in
//! GBNF (an object of named strings, numbers, booleans), any JSON object otherwise —
//! or `{"answer": "…"}`, its reply, ending with one of its signals when it has any.
//! The object is read back leniently (what a model writes is untrusted) into the
//! same tool calls and reply a native tool-calling model gives, so runs, events and
//! transcripts do not know the difference.
//!
//! The conversation is rewritten for such a model as well: an earlier call is the
//! JSON it wrote, a result is a message saying what the tool answered. After a
//! result, the model is held to an answer (asked again, a small model calls the same
//! tool again and again).
//!
//! Any OpenAI-compatible endpoint whose model has no tool calling (Ollama, LM Studio
//! or llama.cpp serving a model without a tool template; known from the model check,
//! or from the server refusing `tools`) gets the same object through the endpoint's
//! own structured output: a JSON schema ([`schema`]) in `response_format`, which
//! llama.cpp, Ollama, LM Studio and vLLM turn into constrained decoding; where that
//! too is refused, the instructions alone, and the reply is read leniently (a fenced
//! block, or the first object in the words).

use crewgraph_engine::run::{Ending, LlmRequest, ToolCall, ToolSpec};
use serde_json::{json, Value};

use crate::grammar::{ending_alternatives, literal};

/// The most characters of an answer (the agent's reply) in the JSON.
pub const MAX_ANSWER_CHARS: usize = 400;
/// The most characters of a string argument.
const MAX_STRING_CHARS: usize = 200;

/// What is asked of the model: a call (`require_tool`), a call or an answer, or an
/// answer only (after a tool's result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    Call,
    CallOrAnswer,
    Answer,
}

/// What the system prompt gains: the tools, and how to call one (or how to answer).
pub fn instructions(tools: &[ToolSpec], asked: Asked) -> String {
    if asked == Asked::Answer {
        return "\n\nReply with JSON only: {\"answer\": \"<your reply, using what the tool answered>\"}.".to_owned();
    }
    let require_tool = asked == Asked::Call;
    let mut text = String::from("\n\nYou can use these tools:\n");
    for tool in tools {
        text.push_str(&format!("- {}: {} Arguments: {}\n", tool.name, tool.description.trim(), arguments_words(&tool.parameters)));
    }
    if require_tool {
        text.push_str("Reply with JSON only: {\"tool\": \"<name>\", \"arguments\": {...}}.");
    } else {
        text.push_str(
            "Reply with JSON only: {\"tool\": \"<name>\", \"arguments\": {...}} to use a tool, or {\"answer\": \"<your reply>\"} \
             when you need none.",
        );
    }
    text
}

/// What is asked of the model for the conversation in `body` (an OpenAI-shaped body
/// rewritten by [`without_tool_roles`]): None when it is offered no tools or held to
/// a schema of the crew's (which is its own constraint).
pub fn asked_of(body: &Value, request: &LlmRequest<'_>) -> Option<Asked> {
    (!request.tools.is_empty() && request.schema.is_none()).then(|| {
        if after_a_result(body) {
            Asked::Answer
        } else if request.require_tool {
            Asked::Call
        } else {
            Asked::CallOrAnswer
        }
    })
}

/// Rewrites an OpenAI-shaped `body` for a model without tool calling: its calls and
/// results in words, no `tools`, and the [`instructions`] at the end of the system
/// message.
pub fn offer_in_words(body: &mut Value, tools: &[ToolSpec], asked: Asked) {
    without_tool_roles(body);
    if let Some(body) = body.as_object_mut() {
        body.remove("tools");
        body.remove("tool_choice");
    }
    let told = instructions(tools, asked);
    match body["messages"].as_array_mut() {
        Some(messages) if messages.first().is_some_and(|m| m["role"] == "system") => {
            let system = format!("{}{told}", messages[0]["content"].as_str().unwrap_or_default());
            messages[0]["content"] = json!(system);
        }
        Some(messages) => messages.insert(0, json!({"role": "system", "content": told.trim_start()})),
        None => {}
    }
}

/// The JSON schema of what the model may write, for an endpoint's structured output
/// (`response_format: json_schema`): a call of one of `tools` with arguments of its
/// schema, or an answer, or either, as `asked`.
pub fn schema(tools: &[ToolSpec], asked: Asked) -> Value {
    let calls = tools.iter().map(|tool| {
        let arguments = if tool.parameters.get("type").and_then(Value::as_str) == Some("object") {
            tool.parameters.clone()
        } else {
            json!({"type": "object"})
        };
        json!({
            "type": "object",
            "properties": {"tool": {"type": "string", "enum": [tool.name]}, "arguments": arguments},
            "required": ["tool", "arguments"],
            "additionalProperties": false,
        })
    });
    let answer = json!({
        "type": "object",
        "properties": {"answer": {"type": "string", "maxLength": MAX_ANSWER_CHARS * 10}},
        "required": ["answer"],
        "additionalProperties": false,
    });
    let choices: Vec<Value> = match asked {
        Asked::Call => calls.collect(),
        Asked::CallOrAnswer => calls.chain([answer]).collect(),
        Asked::Answer => vec![answer],
    };
    if choices.len() == 1 {
        return choices.into_iter().next().unwrap_or_default();
    }
    json!({"anyOf": choices})
}

/// The grammar: a call of one of `tools`, or an answer ending with one of `endings`
/// (any answer when there are none), or either, as `asked`.
pub fn grammar(tools: &[ToolSpec], endings: &[Ending], asked: Asked) -> String {
    let mut rules = Vec::new();
    let calls: Vec<String> = (0..tools.len()).map(|i| format!("tool{i}")).collect();
    let root = match asked {
        Asked::Call => "call",
        Asked::CallOrAnswer => "call | answer",
        Asked::Answer => "answer",
    };
    rules.push(format!("root ::= {root}"));
    rules.push(format!("call ::= \"{{\\\"tool\\\": \" ({}) \"}}\"", calls.join(" | ")));
    for (i, tool) in tools.iter().enumerate() {
        let name = literal(&format!("\"{}\"", tool.name));
        let arguments = object_rule(&tool.parameters).unwrap_or_else(|| "object".to_owned());
        rules.push(format!("tool{i} ::= {name} \", \\\"arguments\\\": \" {arguments}"));
    }
    let (ending, lines) = answer_ending(endings);
    rules.push(format!("answer ::= \"{{\\\"answer\\\": \\\"\" achar{{1,{MAX_ANSWER_CHARS}}} {ending} \"\\\"}}\""));
    rules.push("achar ::= [^\"\\\\\\x00-\\x1F\\[\\]]".to_owned());
    for (i, line) in lines.iter().enumerate() {
        rules.push(format!("line{i} ::= {line}"));
    }
    rules.push("object ::= \"{\" ws ( string ws \":\" ws value ( ws \",\" ws string ws \":\" ws value )* )? ws \"}\"".to_owned());
    rules.push("value ::= object | array | string | number | \"true\" | \"false\" | \"null\"".to_owned());
    rules.push("array ::= \"[\" ws ( value ( ws \",\" ws value )* )? ws \"]\"".to_owned());
    rules.push(format!("string ::= \"\\\"\" ( [^\"\\\\\\x00-\\x1F] | \"\\\\\" [\"\\\\/bfnrt] ){{0,{MAX_STRING_CHARS}}} \"\\\"\""));
    rules.push("number ::= \"-\"? [0-9]{1,15} (\".\" [0-9]{1,15})?".to_owned());
    rules.push("integer ::= \"-\"? [0-9]{1,15}".to_owned());
    rules.push("boolean ::= \"true\" | \"false\"".to_owned());
    rules.push("ws ::= [ ]?".to_owned());
    rules.join("\n") + "\n"
}

/// How an answer may end: one of the bracket signals, a line signal's line (after an
/// escaped newline), or anything when there are none.
fn answer_ending(endings: &[Ending]) -> (String, Vec<String>) {
    let (alternatives, lines) = ending_alternatives(endings, "\"\\\\n\"");
    if alternatives.is_empty() {
        ("\"\"".to_owned(), lines)
    } else {
        (format!("({})", alternatives.join(" | ")), lines)
    }
}

/// An object schema's properties, in order, as GBNF — every required one, as its type
/// says; None when the schema says more than that (the generic object is used).
fn object_rule(schema: &Value) -> Option<String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    let properties = match schema.get("properties") {
        None => return Some("\"{}\"".to_owned()),
        Some(properties) => properties.as_object()?,
    };
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).map_or_else(Vec::new, |r| r.iter().filter_map(Value::as_str).collect());
    let mut parts = Vec::new();
    for (name, property) in properties {
        if !required.contains(&name.as_str()) {
            continue;
        }
        let kind = match property.get("type").and_then(Value::as_str)? {
            "string" if property.get("enum").is_none() => "string",
            "number" => "number",
            "integer" => "integer",
            "boolean" => "boolean",
            _ => return None,
        };
        parts.push(format!("{} {kind}", literal(&format!("\"{name}\": "))));
    }
    if parts.is_empty() {
        return Some("\"{}\"".to_owned());
    }
    Some(format!("\"{{\" {} \"}}\"", parts.join(" \", \" ")))
}

/// A tool's arguments in a few words for the prompt: `{"timezone": string}`.
fn arguments_words(schema: &Value) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return "{}".to_owned() };
    let fields: Vec<String> = properties
        .iter()
        .map(|(name, property)| {
            let kind = property.get("type").and_then(Value::as_str).unwrap_or("value");
            match property.get("description").and_then(Value::as_str) {
                Some(about) => format!("\"{name}\": {kind} ({})", about.chars().take(80).collect::<String>()),
                None => format!("\"{name}\": {kind}"),
            }
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// What the model wrote: a call of one of `tools` (with its id) or an answer; its
/// text as it is when it is neither (a reply held by no grammar, or cut short).
pub fn read(text: &str, tools: &[ToolSpec], id: &str) -> (String, Vec<ToolCall>) {
    let trimmed = text.trim();
    if let Some(Value::Object(object)) = serde_json::from_str::<Value>(trimmed).ok().or_else(|| object_in(trimmed)) {
        if let (Some(name), arguments) = (object.get("tool").and_then(Value::as_str), object.get("arguments")) {
            if tools.iter().any(|t| t.name == name) {
                let arguments = arguments.filter(|a| a.is_object()).cloned().unwrap_or_else(|| json!({}));
                return (String::new(), vec![ToolCall { id: id.to_owned(), name: name.to_owned(), arguments }]);
            }
        }
        if let Some(answer) = object.get("answer").and_then(Value::as_str) {
            return (answer.to_owned(), Vec::new());
        }
    }
    // Cut short inside the answer: what there is of it.
    if let Some(rest) = trimmed.strip_prefix("{\"answer\": \"") {
        let body = rest.strip_suffix("\"}").unwrap_or(rest);
        let unescaped: String = serde_json::from_str(&format!("\"{body}\"")).unwrap_or_else(|_| body.replace("\\n", "\n"));
        return (unescaped, Vec::new());
    }
    (text.to_owned(), Vec::new())
}

/// The first JSON object in words (a model held by no constraint may wrap it in a
/// fenced block or a sentence): each `{` in turn, read as far as one value goes.
fn object_in(text: &str) -> Option<Value> {
    text.match_indices('{').take(32).find_map(|(start, _)| {
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match values.next() {
            Some(Ok(value @ Value::Object(_))) => Some(value),
            _ => None,
        }
    })
}

/// The conversation of an OpenAI-shaped body rewritten for a model without tool
/// calling: a call as the JSON it wrote, a result as a message saying what the tool
/// answered.
pub fn without_tool_roles(body: &mut Value) {
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else { return };
    for message in messages.iter_mut() {
        if let Some(calls) = message.get("tool_calls").and_then(Value::as_array).cloned() {
            let written: Vec<String> = calls
                .iter()
                .map(|call| {
                    let function = &call["function"];
                    let arguments: Value = function["arguments"].as_str().and_then(|a| serde_json::from_str(a).ok()).unwrap_or(json!({}));
                    // As the grammar has the model write it.
                    format!("{{\"tool\": {}, \"arguments\": {}}}", function["name"], arguments)
                })
                .collect();
            message["content"] = json!(written.join("\n"));
            if let Some(object) = message.as_object_mut() {
                object.remove("tool_calls");
            }
        } else if message["role"] == "tool" {
            let result = message["content"].as_str().unwrap_or_default().to_owned();
            *message = json!({"role": "user", "content": format!("The tool answered: {result}")});
        }
    }
}

/// The body's last message is a tool's result (as rewritten or not).
pub fn after_a_result(body: &Value) -> bool {
    body.get("messages").and_then(Value::as_array).and_then(|m| m.last()).is_some_and(|last| {
        last["role"] == "tool" || (last["role"] == "user" && last["content"].as_str().is_some_and(|c| c.starts_with("The tool answered: ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolSpec> {
        vec![
            ToolSpec {
                name: "clock__get_current_time".into(),
                description: "Get current time in a specific timezone".into(),
                parameters: json!({"type": "object", "properties": {"timezone": {"type": "string", "description": "IANA name"}}, "required": ["timezone"]}),
            },
            ToolSpec {
                name: "calculator".into(),
                description: "Arithmetic".into(),
                parameters: json!({"type": "object", "properties": {"expression": {"oneOf": []}}, "required": ["expression"]}),
            },
        ]
    }

    #[test]
    fn the_grammar_names_the_tools_holds_simple_arguments_and_ends_answers_with_a_signal() {
        let grammar = grammar(&tools(), &[Ending::Signal("[DONE]".into())], Asked::CallOrAnswer);
        assert!(grammar.starts_with("root ::= call | answer\n"), "{grammar}");
        assert!(
            grammar.contains(r#"tool0 ::= "\"clock__get_current_time\"" ", \"arguments\": " "{" "\"timezone\": " string "}""#),
            "{grammar}"
        );
        assert!(grammar.contains(r#"tool1 ::= "\"calculator\"" ", \"arguments\": " object"#), "a schema GBNF cannot say: {grammar}");
        assert!(grammar.contains(r#"achar{1,400} ("[DONE]")"#), "{grammar}");
        assert!(defines_every_rule(&grammar));
        let required = super::grammar(&tools(), &[], Asked::Call);
        assert!(required.starts_with("root ::= call\n"));
        assert!(super::grammar(&tools(), &[], Asked::Answer).starts_with("root ::= answer\n"));
    }

    /// Every rule the grammar uses is defined in it.
    fn defines_every_rule(grammar: &str) -> bool {
        let defined: Vec<&str> = grammar.lines().filter_map(|l| l.split(" ::= ").next()).collect();
        ["root", "call", "answer", "achar", "object", "value", "array", "string", "number", "integer", "boolean", "ws"]
            .iter()
            .all(|rule| defined.contains(rule))
    }

    #[test]
    fn a_call_or_an_answer_is_read_back_and_anything_else_kept_as_text() {
        let (text, calls) = read(r#"{"tool": "clock__get_current_time", "arguments": {"timezone": "Europe/Paris"}}"#, &tools(), "call_l1");
        assert_eq!(text, "");
        assert_eq!(
            calls,
            [ToolCall { id: "call_l1".into(), name: "clock__get_current_time".into(), arguments: json!({"timezone": "Europe/Paris"}) }]
        );
        assert_eq!(read(r#"{"answer": "It is noon.\n[DONE]"}"#, &tools(), "x").0, "It is noon.\n[DONE]");
        assert_eq!(read(r#"{"answer": "Cut sho"#, &tools(), "x").0, "Cut sho");
        // A tool that was not offered is not called.
        assert_eq!(read(r#"{"tool": "rm", "arguments": {}}"#, &tools(), "x"), (r#"{"tool": "rm", "arguments": {}}"#.into(), vec![]));
        assert_eq!(read("plain words", &tools(), "x").0, "plain words");
    }

    #[test]
    fn a_call_in_a_fenced_block_or_a_sentence_is_read_too() {
        let fenced = "Sure.\n```json\n{\"tool\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}\n```";
        let (text, calls) = read(fenced, &tools(), "c");
        assert_eq!((text.as_str(), calls.len()), ("", 1));
        assert_eq!(calls[0].arguments, json!({"expression": "2+2"}));
        assert_eq!(read("I think {\"answer\": \"Four. [DONE]\"} is it", &tools(), "c").0, "Four. [DONE]");
        // Braces that are no JSON are words.
        assert_eq!(read("a {b} c", &tools(), "c").0, "a {b} c");
    }

    #[test]
    fn the_schema_holds_a_call_to_an_offered_tool_and_its_arguments_or_an_answer() {
        let either = schema(&tools(), Asked::CallOrAnswer);
        let choices = either["anyOf"].as_array().unwrap();
        assert_eq!(choices.len(), 3);
        assert_eq!(choices[0]["properties"]["tool"]["enum"], json!(["clock__get_current_time"]));
        assert_eq!(choices[0]["properties"]["arguments"]["required"], json!(["timezone"]));
        assert_eq!(choices[2]["required"], json!(["answer"]));
        assert_eq!(schema(&tools(), Asked::Answer)["required"], json!(["answer"]), "one choice stands alone");
        assert_eq!(schema(&tools(), Asked::Call)["anyOf"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn calls_and_results_are_rewritten_for_a_model_without_tool_roles() {
        let mut body = json!({"messages": [
            {"role": "user", "content": "time?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "clock__get_current_time", "arguments": "{\"timezone\":\"UTC\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "12:00"},
        ]});
        without_tool_roles(&mut body);
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": r#"{"tool": "clock__get_current_time", "arguments": {"timezone":"UTC"}}"#})
        );
        assert_eq!(body["messages"][2], json!({"role": "user", "content": "The tool answered: 12:00"}));
        assert!(after_a_result(&body));
        assert!(instructions(&tools(), Asked::CallOrAnswer).contains("- calculator: Arithmetic Arguments: {\"expression\": value}"));
    }
}
