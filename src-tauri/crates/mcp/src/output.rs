//! A tool's result as the agent sees it: the text blocks as they are, structured
//! content as JSON when there is no text, images, audio and resources named (never
//! inlined: a model reads words), all cut to what an agent is handed from `http_get`.
//! A result far larger than any agent could read is refused whole, so a server
//! cannot flood a run's history or events.

use crewgraph_engine::run::tools::MAX_FETCHED_CHARS;
use crewgraph_engine::run::ToolOutput;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// The most bytes of a result taken from a server.
pub const MAX_RESULT_BYTES: usize = 1024 * 1024;

/// `result` as the agent's tool result, or why it is refused (too large).
pub fn output(result: &CallToolResult) -> Result<ToolOutput, String> {
    let size = size_of(result);
    if size > MAX_RESULT_BYTES {
        return Err(format!("sent a result of {}, more than the {} Crewgraph takes from a tool", bytes(size), bytes(MAX_RESULT_BYTES)));
    }
    let mut parts: Vec<String> = result.content.iter().map(describe).collect();
    let has_text = result.content.iter().any(|block| matches!(block, ContentBlock::Text(_)));
    if let (false, Some(structured)) = (has_text, &result.structured_content) {
        parts.push(structured.to_string());
    }
    let mut text = parts.join("\n");
    if let Some((cut, _)) = text.char_indices().nth(MAX_FETCHED_CHARS) {
        text.truncate(cut);
        text.push_str("\n[… cut]");
    }
    Ok(ToolOutput { text, is_error: result.is_error == Some(true) })
}

fn describe(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!("[an image, {}, {}]", image.mime_type, bytes(image.data.len() * 3 / 4)),
        ContentBlock::Audio(audio) => format!("[a sound, {}, {}]", audio.mime_type, bytes(audio.data.len() * 3 / 4)),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, .. } => format!("[a resource: {uri}]"),
            ResourceContents::BlobResourceContents { uri, .. } => format!("[a resource: {uri}]"),
            #[allow(unreachable_patterns)]
            _ => "[a resource]".to_owned(),
        },
        ContentBlock::ResourceLink(link) => format!("[a link to a resource: {} ({})]", link.uri, link.name),
        _ => "[content of a kind Crewgraph does not read]".to_owned(),
    }
}

/// The bytes of a result's content, as sent (base64 data counted as it came).
fn size_of(result: &CallToolResult) -> usize {
    let blocks: usize = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.len(),
            ContentBlock::Image(image) => image.data.len(),
            ContentBlock::Audio(audio) => audio.data.len(),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                ResourceContents::TextResourceContents { text, .. } => text.len(),
                ResourceContents::BlobResourceContents { blob, .. } => blob.len(),
                #[allow(unreachable_patterns)]
                _ => 0,
            },
            ContentBlock::ResourceLink(link) => link.uri.len(),
            _ => 0,
        })
        .sum();
    blocks + result.structured_content.as_ref().map_or(0, |value| value.to_string().len())
}

/// A size as people read it: `512 bytes`, `12 KB`, `10.0 MB`.
pub fn bytes(size: usize) -> String {
    match size {
        s if s < 1024 => format!("{s} bytes"),
        s if s < 1024 * 1024 => format!("{} KB", s / 1024),
        s => format!("{:.1} MB", s as f64 / (1024.0 * 1024.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: serde_json::Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn text_is_kept_images_named_and_structured_content_used_when_there_is_no_text() {
        let out = output(&result(json!({"content": [
            {"type": "text", "text": "The file says hello."},
            {"type": "image", "data": "aGVsbG8gd29ybGQh", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///tmp/a.txt", "name": "a.txt"}
        ]})))
        .unwrap();
        assert_eq!(out.text, "The file says hello.\n[an image, image/png, 12 bytes]\n[a link to a resource: file:///tmp/a.txt (a.txt)]");
        assert!(!out.is_error);
        let structured = output(&result(json!({"content": [], "structuredContent": {"sum": 3}, "isError": false}))).unwrap();
        assert_eq!(structured.text, r#"{"sum":3}"#);
        let failed = output(&result(json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}))).unwrap();
        assert!(failed.is_error);
    }

    #[test]
    fn a_long_result_is_cut_and_a_huge_one_refused() {
        let long = output(&result(json!({"content": [{"type": "text", "text": "a".repeat(20_000)}]}))).unwrap();
        assert_eq!(long.text.chars().count(), MAX_FETCHED_CHARS + "\n[… cut]".chars().count());
        let huge = output(&result(json!({"content": [{"type": "text", "text": "a".repeat(10 * 1024 * 1024)}]})));
        assert_eq!(huge.unwrap_err(), "sent a result of 10.0 MB, more than the 1.0 MB Crewgraph takes from a tool");
    }
}
