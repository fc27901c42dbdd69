//! What a person is told when no keyring can be used: no session bus, a bus with
//! nothing on it, a keyring that stays locked.

use crewgraph::api::{Api, ApiErrorCode};

use super::*;

/// Without any session bus, and with one that is not there: `crewgraph keys set`
/// fails in one sentence that says where to put the key instead.
#[test]
fn without_a_keyring_the_cli_says_so_and_where_the_key_can_go_instead() {
    let dir = tempfile::tempdir().unwrap();
    for bus in [None, Some("unix:path=/nonexistent/crewgraph-test-bus")] {
        let mut command = crewgraph();
        command.current_dir(dir.path()).args(["keys", "set", "openai"]).write_stdin("sk-never-kept").timeout(COMMAND_LIMIT);
        match bus {
            None => command.env_remove("DBUS_SESSION_BUS_ADDRESS"),
            Some(address) => command.env("DBUS_SESSION_BUS_ADDRESS", address),
        };
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(1), "bus {bus:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "bus {bus:?}: one sentence: {stderr}");
        assert!(stderr.starts_with("crewgraph: ") && stderr.contains("keyring"), "bus {bus:?}: {stderr}");
        assert!(stderr.contains("OPENAI_API_KEY"), "bus {bus:?}: it says where the key can go instead: {stderr}");
        assert!(!stderr.contains("sk-never-kept"), "bus {bus:?}: {stderr}");
        assert_plain_words(&stderr);

        let mut status = crewgraph();
        status
            .current_dir(dir.path())
            .arg("keys")
            .env_remove("OPENAI_API_KEY")
            .env_remove("CREWGRAPH_OPENAI_API_KEY")
            .timeout(COMMAND_LIMIT);
        match bus {
            None => status.env_remove("DBUS_SESSION_BUS_ADDRESS"),
            Some(address) => status.env("DBUS_SESSION_BUS_ADDRESS", address),
        };
        let listed = status.output().unwrap();
        let stdout = String::from_utf8_lossy(&listed.stdout).into_owned();
        assert!(listed.status.success(), "bus {bus:?}: {}", String::from_utf8_lossy(&listed.stderr));
        assert!(stdout.lines().any(|l| l.starts_with("openai") && l.contains("not set")), "bus {bus:?}: {stdout}");
    }
}

#[test]
#[ignore = "needs no session bus at all: scripts/test-secrets.sh runs it (make test)"]
fn no_keyring_the_settings_say_so_in_a_sentence_and_keys_from_the_environment_still_work() {
    require("none");
    assert!(std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none(), "the script runs this with no session bus");
    let api = Api::new(".");
    let error = api.set_api_key("openai", "sk-never-kept").expect_err("no keyring to keep it in");
    assert_eq!(error.code, ApiErrorCode::Io);
    assert!(error.message.contains("keyring") && error.message.contains("OPENAI_API_KEY"), "{}", error.message);
    assert_eq!(error.message.matches("OPENAI_API_KEY or").count(), 1, "says where the key can go once: {}", error.message);
    assert!(!error.message.contains("sk-never-kept"), "{}", error.message);
    assert_plain_words(&error.message);
    // Removing says that no keyring was asked, rather than that it held nothing.
    let error = api.remove_api_key("openai").expect_err("no keyring to remove from");
    assert!(error.message.contains("no OS keyring is reachable") && error.message.contains("no key was removed"), "{}", error.message);
    assert_plain_words(&error.message);
}

#[test]
#[ignore = "needs a locked Secret Service: scripts/test-secrets.sh runs it (make test)"]
fn locked_keyring_says_so_in_a_sentence_and_keys_from_the_environment_still_work() {
    require("locked");
    let sandbox = tempfile::tempdir().unwrap();
    let (dir, db) = (sandbox.path(), sandbox.path().join("runs.db"));

    // The keyring is there but locked, and nobody can type its password.
    let set = cg(dir, &["keys", "set", "openai"], "sk-never-kept");
    assert_eq!(set.code, 1, "{}", set.stderr);
    assert_eq!(set.stderr.lines().count(), 1, "one sentence: {}", set.stderr);
    assert!(
        set.stderr.contains("keyring is locked") && set.stderr.contains("OPENAI_API_KEY"),
        "says it is locked, not missing: {}",
        set.stderr
    );
    assert_plain_words(&set.stderr);
    let error = Api::new(dir).set_api_key("openai", "sk-never-kept").expect_err("a locked keyring keeps nothing");
    assert_eq!(error.code, ApiErrorCode::Io);
    assert_eq!(error.message.matches("OPENAI_API_KEY or").count(), 1, "{}", error.message);
    assert_plain_words(&error.message);

    // Looking a key up does not wait on the locked keyring: the environment's is used.
    let status = cg(dir, &["keys"], "");
    assert!(says_key(&status.stdout, "openai", "set (environment)"), "{}", status.stdout);
    let desk = Desk::start();
    let url = format!("{}/locked/v1", desk.base);
    assert_eq!(add_model(dir, &db, "m", &url, None).code, 0);
    let sent = bearers(&run_on(dir, &db, &desk, "m", "/locked/"));
    assert!(!sent.is_empty() && sent.iter().all(|k| k.as_deref() == Some(ENV_KEY)), "the environment's key is sent: {sent:?}");
}
