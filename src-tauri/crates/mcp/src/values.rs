//! The environment variables and headers of a tool server, with the keys they name
//! looked up: `{key: NAME}` in a crew file is the key `NAME` from the OS keyring,
//! else the environment (`crewgraph_llm::keys::find_named`). The values found go to
//! the server and nowhere else; [`Resolved::hide`] blanks them out of anything the
//! server says back, so an echo of a token cannot reach an event or a log.

use crewgraph_engine::crew::ServerValue;
use crewgraph_llm::keys::{self, Secret};

/// Values ready for the server, and the secrets among them.
#[derive(Debug, Default)]
pub struct Resolved {
    pub pairs: Vec<(String, Secret)>,
    secrets: Vec<Secret>,
}

impl Resolved {
    /// `text` with every secret of these values replaced by `[hidden]`.
    pub fn hide(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for secret in &self.secrets {
            if !secret.expose().is_empty() {
                text = text.replace(secret.expose(), "[hidden]");
            }
        }
        text
    }

    /// Adds the secrets of `other` to those hidden.
    pub fn hide_also(&mut self, other: &Resolved) {
        self.secrets.extend(other.secrets.iter().cloned());
    }
}

/// Looks up the keys `values` name; `what` says where they belong (`the environment
/// variable`, `the header`) and `server` whose they are, for the error.
pub fn resolve(server: &str, what: &str, values: &[(String, ServerValue)]) -> Result<Resolved, String> {
    let mut resolved = Resolved::default();
    for (name, value) in values {
        match value {
            ServerValue::Text(text) => resolved.pairs.push((name.clone(), Secret::new(text.clone()))),
            ServerValue::Key { name: key, prefix } => {
                let secret = keys::find_named(key).ok_or_else(|| {
                    format!(
                        "the tool server '{server}' needs the key '{key}' for {what} {name}, and it is in neither {}",
                        keys::named_places(key)
                    )
                })?;
                resolved.secrets.push(secret.clone());
                resolved.pairs.push((name.clone(), Secret::new(format!("{prefix}{}", secret.expose()))));
            }
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_looked_up_and_hidden_from_what_the_server_says() {
        let var = "CREWGRAPH_MCP_VALUES_TEST_TOKEN_5d1";
        std::env::set_var(var, "s3cret-token");
        let values = vec![
            ("Authorization".to_owned(), ServerValue::Key { name: var.to_owned(), prefix: "Bearer ".into() }),
            ("X-Plain".to_owned(), ServerValue::Text("plain".into())),
        ];
        let resolved = resolve("web", "the header", &values).unwrap();
        assert_eq!(resolved.pairs[0].1.expose(), "Bearer s3cret-token");
        assert_eq!(resolved.pairs[1].1.expose(), "plain");
        assert_eq!(resolved.hide("you sent s3cret-token"), "you sent [hidden]");
        assert_eq!(format!("{resolved:?}").matches("s3cret").count(), 0);
        std::env::remove_var(var);
    }

    #[test]
    fn a_key_found_nowhere_says_where_it_was_looked_for() {
        let values = vec![("TOKEN".to_owned(), ServerValue::Key { name: "no_such_key_c81".into(), prefix: String::new() })];
        let error = resolve("files", "the environment variable", &values).unwrap_err();
        assert!(error.starts_with("the tool server 'files' needs the key 'no_such_key_c81' for the environment variable TOKEN"));
        assert!(error.contains("CREWGRAPH_NO_SUCH_KEY_C81_API_KEY"), "{error}");
    }
}
