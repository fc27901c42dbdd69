//! A crew checked against its tool servers as they run: an agent naming a tool that
//! its server, asked, said it does not have is an error at that line:col — not only
//! a run that fails at the agent's first turn. A server that is not running (or has
//! said its list changed since it was asked) says nothing: it is not started to
//! check a crew, so this only adds to what the servers already told.

use crate::crew::ToolServer;
use crate::diagnostic::{Diagnostic, Problem, Subject};
use crate::load::Loaded;
use crate::tool_server::server_entry;

/// Adds to `loaded` an error for each tool its agents name that the server of that
/// name among `servers` (the crew's own, then the app's) lists without: `listed`
/// gives the names a server's tools had when last asked, None when it cannot say.
pub fn check_listed_tools(loaded: &mut Loaded, servers: &[ToolServer], listed: impl Fn(&ToolServer) -> Option<Vec<String>>) {
    let mut found = Vec::new();
    for mention in &loaded.tool_mentions {
        let Some((index, Some(name))) = server_entry(servers, &mention.tool) else { continue };
        let server = &servers[index];
        let Some(mut names) = listed(server) else { continue };
        if names.iter().any(|n| n == name) {
            continue;
        }
        names.sort_unstable();
        let has = if names.is_empty() { "it has none".to_owned() } else { format!("it has: {}", names.join(", ")) };
        let problem = Problem::ToolNotOnServer {
            agent: mention.agent.clone(),
            tool: mention.tool.clone(),
            server: server.name.clone(),
            name: name.to_owned(),
            has,
        };
        found.push(Diagnostic::new(problem, mention.location.clone(), Subject::Agent { agent: mention.agent.clone() }));
    }
    loaded.diagnostics.extend(found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    const CREW: &str =
        "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\n    tools: [files.read, files.red, files.*, clock.now]\n\
                        tools:\n  servers:\n    files:\n      command: mcp-files\n";

    #[test]
    fn a_tool_a_running_server_lacks_is_an_error_at_its_place_naming_what_it_has() {
        let mut loaded = load_str("crew.yaml", CREW);
        let servers = loaded.crew.as_ref().map(|c| c.tool_servers.clone()).unwrap_or_default();
        check_listed_tools(&mut loaded, &servers, |_| Some(vec!["write".into(), "read".into()]));
        let errors: Vec<String> =
            loaded.errors().map(|d| format!("{}: {}", d.location.as_ref().map_or(0, |l| l.column), d.message)).collect();
        assert_eq!(
            errors,
            ["25: agent 'a' uses tool 'files.red', but the tool server 'files' has no tool called 'red' (it has: read, write)"]
        );
        assert_eq!(loaded.errors().next().map(|d| d.location.as_ref().map(|l| l.line)), Some(Some(5)));
    }

    #[test]
    fn a_server_that_cannot_say_makes_no_error() {
        let mut loaded = load_str("crew.yaml", CREW);
        let servers = loaded.crew.as_ref().map(|c| c.tool_servers.clone()).unwrap_or_default();
        check_listed_tools(&mut loaded, &servers, |_| None);
        assert!(loaded.is_valid(), "{:?}", loaded.diagnostics);
    }
}
