//! The file desk (`crews/file-desk.yaml`, issue 17): the example crew that does real
//! work through a real tool server, run as a person runs it — in Simulate, through
//! the binary — on a copy of the example in a temp folder, never the repository. Its
//! reader lists and reads the documents beside the crew through npm's
//! `server-filesystem`, which starts in the crew's folder (the crew names the
//! documents' folder, and the script names the files, by relative paths); the
//! writer's write asks, the run pauses, and `crewgraph approve` lets it save the
//! summary.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::e2e::{cg_in, parse};
use crate::support::{copy_dir, repo_root};

/// How the example names the server: from `crews/`, into the repository's `.tools/`.
const SERVER: &str = "../.tools/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";

/// The documents of `crews/file-desk/`, in the order the server lists them.
const DOCUMENTS: [&str; 3] = ["meeting-notes.md", "pilot-feedback.md", "product-brief.md"];

/// The example copied into `root/crews/` (crew, script, documents), the server named
/// by its absolute path in the repository, as the copy has no `.tools/` beside it.
fn copy_example(root: &Path) -> PathBuf {
    let (examples, crews) = (repo_root().join("crews"), root.join("crews"));
    let server = repo_root().join(SERVER.trim_start_matches("../"));
    assert!(server.exists(), "{} is missing: run scripts/install-mcp-servers.sh (make run and make test do)", server.display());
    // write_file makes no folders: the summaries folder ships with the example.
    assert!(examples.join("file-desk/summaries/.gitkeep").is_file(), "crews/file-desk/summaries/ is kept by its .gitkeep");
    copy_dir(&examples.join("file-desk"), &crews.join("file-desk"));
    // A summary a person saved by running the example in the repository is not the test's.
    std::fs::remove_file(crews.join("file-desk/summaries/summary.md")).ok();
    std::fs::create_dir(crews.join("scripts")).unwrap();
    std::fs::copy(examples.join("scripts/file-desk.yaml"), crews.join("scripts/file-desk.yaml")).unwrap();
    let crew = std::fs::read_to_string(examples.join("file-desk.yaml")).unwrap();
    assert!(crew.contains(&format!("args: [{SERVER}, file-desk]")), "the example names its server and folder relatively: {crew}");
    std::fs::write(crews.join("file-desk.yaml"), crew.replace(SERVER, server.to_str().unwrap())).unwrap();
    crews
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// The events of `type` in `events`.
fn of_type<'e>(events: &'e [Value], kind: &str) -> Vec<&'e Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn the_file_desk_reads_the_real_documents_and_saves_its_summary_once_allowed() {
    let repository_desk = repo_root().join("crews/file-desk");
    let (documents_before, summaries_before) = (names_in(&repository_desk), names_in(&repository_desk.join("summaries")));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let crews = copy_example(&root);
    let db = root.join("runs.db");
    let db = db.to_str().unwrap();
    let script = "crews/scripts/file-desk.yaml";

    // Started from the folder above the crews: `file-desk` there is nothing, so the run
    // works only if the server starts in the crew's own folder.
    let input = "Summarise the documents in the folder";
    let ran = cg_in(&root, &["run", "crews/file-desk.yaml", "--input", input, "--script", script, "--json", "--db", db]);
    assert_eq!(ran.code, 0, "{}\n{}", ran.stdout, ran.stderr);
    let events: Vec<Value> = ran.lines().iter().map(|l| parse(l)).collect();
    let last = events.last().unwrap();
    assert_eq!((last["type"].as_str(), last["status"].as_str()), (Some("run_finished"), Some("paused")), "it waits: {last}");

    // The reads are real: the server's listing of the folder, each document's own text.
    let calls: Vec<(&str, &str)> =
        of_type(&events, "tool_call").iter().map(|c| (c["name"].as_str().unwrap(), c["arguments"]["path"].as_str().unwrap())).collect();
    let mut expected = vec![("files.list_directory", ".")];
    expected.extend(DOCUMENTS.iter().map(|d| ("files.read_text_file", *d)));
    expected.push(("files.write_file", "summaries/summary.md"));
    assert_eq!(calls, expected);
    let results: Vec<&str> = of_type(&events, "tool_result").iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(results.len(), 4, "the write has no result yet: {results:?}");
    let listing: Vec<String> = DOCUMENTS.iter().map(|d| format!("[FILE] {d}")).chain(["[DIR] summaries".to_owned()]).collect();
    assert_eq!(results[0], listing.join("\n"));
    for (document, result) in DOCUMENTS.iter().zip(&results[1..]) {
        let text = std::fs::read_to_string(crews.join("file-desk").join(document)).unwrap();
        assert_eq!(*result, text, "{document} as the server read it");
    }

    // The write asks a person, and nothing is written before one answers.
    let asked = of_type(&events, "tool_approval_requested");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!((asked[0]["agent"].as_str(), asked[0]["name"].as_str()), (Some("writer"), Some("files.write_file")));
    let summary = crews.join("file-desk/summaries/summary.md");
    assert!(!summary.exists(), "nothing is written before the person allows it");

    let run_id = last["run_id"].as_str().unwrap();
    let call_id = asked[0]["call_id"].as_str().unwrap();
    let approved = cg_in(&root, &["approve", run_id, call_id, "--script", script, "--json", "--db", db]);
    assert_eq!(approved.code, 0, "{}\n{}", approved.stdout, approved.stderr);
    let after: Vec<Value> = approved.lines().iter().map(|l| parse(l)).collect();
    let decision = of_type(&after, "tool_approval");
    assert_eq!(decision.len(), 1, "{after:?}");
    assert_eq!((decision[0]["call_id"].as_str(), decision[0]["decision"].as_str()), (Some(call_id), Some("allow_once")));
    let written = of_type(&after, "tool_result");
    assert_eq!(written.iter().map(|r| r["result"].as_str().unwrap()).collect::<Vec<_>>(), ["Successfully wrote to summaries/summary.md"]);
    let last = after.last().unwrap();
    assert_eq!((last["type"].as_str(), last["status"].as_str()), (Some("run_finished"), Some("terminated")), "{last}");

    // The summary is the script's, saved in the copy's summaries folder.
    let script = crewgraph_llm::Script::load(&crews.join("scripts/file-desk.yaml")).unwrap();
    let write = &script.replies_of("writer").unwrap()[0].tool_calls[0];
    assert_eq!(write.0, "files.write_file");
    let scripted = write.1["content"].as_str().unwrap();
    assert!(scripted.starts_with("# Shelf: where things stand\n"), "{scripted}");
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), scripted);
    assert_eq!(names_in(&crews.join("file-desk/summaries")), [".gitkeep", "summary.md"]);
    assert_eq!(
        (names_in(&repository_desk), names_in(&repository_desk.join("summaries"))),
        (documents_before, summaries_before),
        "the repository's copy is untouched"
    );
}
