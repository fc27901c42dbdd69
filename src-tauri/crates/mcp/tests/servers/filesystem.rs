//! npm's `server-filesystem`: a real read, a real write, and a path outside the
//! folder it may use, which it refuses (an error result the agent is handed).

use crewgraph_engine::run::ToolHost;
use crewgraph_mcp::McpHost;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::{filesystem, logs};

#[tokio::test]
async fn reads_and_writes_real_files_inside_its_folder_and_refuses_outside_it() {
    let folder = tempfile::tempdir().unwrap();
    let folder_path = folder.path().canonicalize().unwrap();
    std::fs::write(folder_path.join("notes.txt"), "Fractions: 1/2 + 1/4 = 3/4\n").unwrap();
    let logs = logs();
    let host = McpHost::new(logs.path());
    let server = filesystem(&folder_path);
    let cancel = CancellationToken::new();
    let tools = host.tools(&server, &cancel).await.expect("the tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"read_text_file") && names.contains(&"write_file"), "{names:?}");
    assert!(tools.iter().find(|t| t.name == "read_text_file").unwrap().read_only);
    assert!(!tools.iter().find(|t| t.name == "write_file").unwrap().read_only);

    let path = folder_path.join("notes.txt").to_string_lossy().into_owned();
    let read = host.call(&server, "read_text_file", &json!({"path": path}), &|_| {}, &cancel).await.unwrap();
    assert_eq!(read.text.trim(), "Fractions: 1/2 + 1/4 = 3/4");

    let summary = folder_path.join("summary.md").to_string_lossy().into_owned();
    let wrote = host.call(&server, "write_file", &json!({"path": summary, "content": "# Summary\n3/4\n"}), &|_| {}, &cancel).await;
    assert!(!wrote.unwrap().is_error);
    assert_eq!(std::fs::read_to_string(folder_path.join("summary.md")).unwrap(), "# Summary\n3/4\n");

    let outside = host.call(&server, "read_text_file", &json!({"path": "/etc/hostname"}), &|_| {}, &cancel).await.unwrap();
    assert!(outside.is_error, "{}", outside.text);
    assert!(outside.text.to_lowercase().contains("access denied"), "{}", outside.text);
}
