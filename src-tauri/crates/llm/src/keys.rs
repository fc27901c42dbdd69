//! API keys: in the OS keyring (Secret Service on Linux, through the `keyring`
//! crate), with environment variables as the fallback — never in crew files, the
//! database, events or logs. A [`Secret`] prints as `[hidden]`, so a key cannot
//! slip into a log line or an error by way of `{:?}`.
//!
//! A key has a name: the provider's (`openai`, `anthropic`) unless a model names
//! another (`openrouter`). For a name `N` the environment fallback is
//! `CREWGRAPH_<N>_API_KEY`, and for `openai` / `anthropic` also `OPENAI_API_KEY` /
//! `ANTHROPIC_API_KEY`.

use std::fmt;

/// The keyring service Crewgraph's keys are filed under.
const SERVICE: &str = "crewgraph";

/// A key's text, never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: impl Into<String>) -> Self {
        Secret(text.into())
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[hidden]")
    }
}

/// Where a key was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyOrigin {
    Keyring,
    Environment,
}

/// Why a key could not be stored.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("no OS keyring is reachable here ({0}); set the key in the environment instead ({1})")]
    NoKeyring(String, String),
    #[error("the OS keyring is locked ({0}); unlock it (log in to the desktop), or set the key in the environment instead ({1})")]
    Locked(String, String),
    #[error("no OS keyring is reachable here ({0}), so no key was removed from it")]
    NothingToRemoveFrom(String),
    #[error("a key name is letters, digits, '-' and '_' only: '{0}'")]
    BadName(String),
}

/// The environment variables that may hold the key named `name`, in order.
pub fn env_names(name: &str) -> Vec<String> {
    let upper: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    let mut names = vec![format!("CREWGRAPH_{upper}_API_KEY")];
    if matches!(name, "openai" | "anthropic") {
        names.push(format!("{upper}_API_KEY"));
    }
    names
}

/// The key named `name`: from the keyring, else the environment. None when neither
/// has it (a local server needs none).
pub fn find(name: &str) -> Option<(Secret, KeyOrigin)> {
    if let Some(secret) = keyring_entry(name).and_then(|entry| entry.get_password().ok()) {
        return Some((Secret(secret), KeyOrigin::Keyring));
    }
    env_names(name)
        .iter()
        .find_map(|var| std::env::var(var).ok().filter(|v| !v.trim().is_empty()))
        .map(|text| (Secret(text.trim().to_owned()), KeyOrigin::Environment))
}

/// A secret a crew names (a gatekeeper's `token_env`, a tool server's `{key: NAME}`):
/// the key `name` ([`find`]), else the environment variable of that very name.
pub fn find_named(name: &str) -> Option<Secret> {
    find(name)
        .map(|(secret, _)| secret)
        .or_else(|| std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()).map(Secret::new))
}

/// Where [`find_named`] looks for `name`, for an error that says so.
pub fn named_places(name: &str) -> String {
    let mut vars = env_names(name);
    vars.push(name.to_owned());
    format!("the OS keyring entry '{name}' or the environment variable {}", vars.join(" or "))
}

/// Stores the key named `name` in the keyring.
pub fn store(name: &str, secret: &Secret) -> Result<(), KeyError> {
    check_name(name)?;
    let entry = keyring_entry(name).ok_or_else(|| no_keyring(name, "no session bus".to_owned()))?;
    entry.set_password(secret.expose()).map_err(|e| no_keyring(name, e.to_string()))
}

/// Removes the key named `name` from the keyring (the environment is left alone).
/// True when there was one.
pub fn remove(name: &str) -> Result<bool, KeyError> {
    check_name(name)?;
    let Some(entry) = keyring_entry(name) else { return Err(KeyError::NothingToRemoveFrom("no session bus".to_owned())) };
    match entry.delete_credential() {
        Ok(()) => Ok(true),
        Err(keyring::Error::NoEntry) => Ok(false),
        Err(error) => Err(no_keyring(name, error.to_string())),
    }
}

fn check_name(name: &str) -> Result<(), KeyError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(KeyError::BadName(name.to_owned()));
    }
    Ok(())
}

/// Why the keyring could not be used: locked (it is there, but nobody unlocked it
/// and no prompt can be answered), or not there at all.
fn no_keyring(name: &str, why: String) -> KeyError {
    let lower = why.to_lowercase();
    if lower.contains("lock") || lower.contains("prompt") || lower.contains("dismissed") {
        KeyError::Locked(why, env_names(name).join(" or "))
    } else {
        KeyError::NoKeyring(why, env_names(name).join(" or "))
    }
}

/// The keyring entry, when a keyring can be reached at all: the Secret Service
/// lives on the session bus, and without one (a server, CI) asking would only fail
/// slowly or start a bus.
fn keyring_entry(name: &str) -> Option<keyring::Entry> {
    if cfg!(target_os = "linux") && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return None;
    }
    keyring::Entry::new(SERVICE, name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_prints() {
        let secret = Secret::new("sk-very-secret");
        assert_eq!(format!("{secret:?}"), "[hidden]");
        assert_eq!(format!("{:?}", Some(&secret)), "Some([hidden])");
    }

    #[test]
    fn environment_names_follow_the_key_name() {
        assert_eq!(env_names("openai"), ["CREWGRAPH_OPENAI_API_KEY", "OPENAI_API_KEY"]);
        assert_eq!(env_names("open-router"), ["CREWGRAPH_OPEN_ROUTER_API_KEY"]);
    }

    #[test]
    fn bad_key_names_are_refused() {
        assert!(matches!(store("a b", &Secret::new("x")), Err(KeyError::BadName(_))));
        assert!(matches!(remove(""), Err(KeyError::BadName(_))));
    }
}
