//! Keys set, used (checked at the desk), replaced and removed, through the CLI
//! (`crewgraph keys`) and through the API the window's Settings call.

use std::path::Path;
use std::sync::Arc;

use crewgraph::api::{Api, ModelRequest, RunOptions};
use crewgraph_engine::run::{CollectingSink, RunStatus};
use crewgraph_store::SqliteStore;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::support::block_on;

#[test]
#[ignore = "needs a Secret Service: scripts/test-secrets.sh runs it (make test)"]
fn keyring_keys_are_set_used_replaced_and_removed_through_the_cli() {
    require("private");
    const NAME: &str = "secrets-cli";
    const FIRST: &str = "sk-cli-first-0a1b2c3d";
    const SECOND: &str = "sk-cli-second-4e5f6a7b";
    const FROM_ENV: &str = "sk-cli-env-8c9d0e1f";
    let sandbox = tempfile::tempdir().unwrap();
    let (dir, db) = (sandbox.path(), sandbox.path().join("runs.db"));
    let desk = Desk::start();
    let url = format!("{}/cli/v1", desk.base);
    assert_eq!(add_model(dir, &db, "m", &url, Some(NAME)).code, 0);
    assert_eq!(key_origin(dir, &db, "m"), None, "no key yet");

    // Set.
    let set = cg(dir, &["keys", "set", NAME], &format!("{FIRST}\n"));
    assert_eq!((set.code, set.stdout.trim()), (0, "stored the key 'secrets-cli' in the keyring"), "{}", set.stderr);
    assert_eq!(key_origin(dir, &db, "m").as_deref(), Some("keyring"));
    assert!(bearers(&run_on(dir, &db, &desk, "m", "/cli/")).iter().all(|k| k.as_deref() == Some(FIRST)), "the stored key is sent");

    // Replace: the new key, never the old one.
    assert_eq!(cg(dir, &["keys", "set", NAME], SECOND).code, 0);
    assert!(bearers(&run_on(dir, &db, &desk, "m", "/cli/")).iter().all(|k| k.as_deref() == Some(SECOND)), "the replaced key is sent");

    // The keyring comes before the environment.
    let env_var = format!("CREWGRAPH_{}_API_KEY", NAME.to_uppercase().replace('-', "_"));
    let with_both = bearers(&run_on_env(dir, &db, &desk, (&env_var, FROM_ENV)));
    assert!(with_both.iter().all(|k| k.as_deref() == Some(SECOND)), "the keyring's key wins: {with_both:?}");

    // Remove: then the environment's, then none.
    let removed = cg(dir, &["keys", "remove", NAME], "");
    assert_eq!((removed.code, removed.stdout.trim()), (0, "removed the key 'secrets-cli' from the keyring"), "{}", removed.stderr);
    let after = bearers(&run_on_env(dir, &db, &desk, (&env_var, FROM_ENV)));
    assert!(after.iter().all(|k| k.as_deref() == Some(FROM_ENV)), "the environment's key once the keyring has none: {after:?}");
    assert_eq!(key_origin(dir, &db, "m"), None, "the listing's environment has no key for it");
    assert!(bearers(&run_on(dir, &db, &desk, "m", "/cli/")).iter().all(Option::is_none), "no key anywhere: none sent");
    let again = cg(dir, &["keys", "remove", NAME], "");
    assert_eq!((again.code, again.stdout.trim()), (0, "the keyring holds no key 'secrets-cli'"));

    // `crewgraph keys` says where the providers' keys come from, never the key.
    let set = cg(dir, &["keys", "set", "anthropic"], FIRST);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let status = cg(dir, &["keys"], "");
    assert!(says_key(&status.stdout, "anthropic", "set (keyring)"), "{}", status.stdout);
    assert!(says_key(&status.stdout, "openai", "set (environment)"), "{}", status.stdout);
    assert!(!status.stdout.contains(FIRST) && !status.stdout.contains(ENV_KEY));
    assert_eq!(cg(dir, &["keys", "remove", "anthropic"], "").code, 0);
}

/// [`run_on`] with the environment variable `var` (name, value) set for the run.
fn run_on_env(dir: &Path, db: &Path, desk: &Desk, var: (&str, &str)) -> Vec<String> {
    let before = desk.requests_to("/cli/").len();
    let crew = dir.join("two-steps.yaml");
    let output = crewgraph()
        .current_dir(dir)
        .args(["run", crew.to_str().unwrap(), "--input", "Greet me", "--model", "m", "--json", "--db", db.to_str().unwrap()])
        .env(var.0, var.1)
        .timeout(COMMAND_LIMIT)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    desk.requests_to("/cli/").split_off(before)
}

/// The API's view of model `name`'s key origin.
async fn api_key_origin(api: &Api, name: &str) -> Option<String> {
    api.list_models(false).await.unwrap().into_iter().find(|m| m.name == name).expect("the model is listed").key
}

/// A run of the two-step crew through the API on model `name`.
async fn api_run(api: &Api, crew: &Path, name: &str) -> RunStatus {
    let options = RunOptions { model: Some(name.to_owned()), ..RunOptions::default() };
    let cancel = CancellationToken::new();
    let started = api.start_run(crew, "Greet me", &options, Arc::new(CollectingSink::default()), &cancel);
    tokio::time::timeout(COMMAND_LIMIT, started).await.expect("the run ends").expect("the run starts").status
}

#[test]
#[ignore = "needs a Secret Service: scripts/test-secrets.sh runs it (make test)"]
fn keyring_keys_are_set_used_replaced_and_removed_through_the_api() {
    require("private");
    const NAME: &str = "secrets-api";
    const FIRST: &str = "sk-api-first-1a2b3c4d";
    const SECOND: &str = "sk-api-second-5e6f7a8b";
    let sandbox = tempfile::tempdir().unwrap();
    let crew = sandbox.path().join("two-steps.yaml");
    std::fs::write(&crew, TWO_STEP_CREW).unwrap();
    let desk = Desk::start();
    let api = Api::new(sandbox.path()).with_sqlite(Arc::new(SqliteStore::open(sandbox.path().join("c.db")).unwrap()));
    block_on(async {
        let request = ModelRequest {
            provider: "openai".into(),
            model: Some("m".into()),
            base_url: Some(format!("{}/api/v1", desk.base)),
            key_name: Some(NAME.into()),
            max_tokens: None,
            context_window: None,
            input_price: None,
            output_price: None,
            default: Some(true),
        };
        api.put_model("m", request).await.unwrap();
        assert_eq!(api_key_origin(&api, "m").await, None);

        api.set_api_key(NAME, &format!("  {FIRST}\n")).expect("the key is kept");
        assert_eq!(api_key_origin(&api, "m").await.as_deref(), Some("keyring"));
        assert_eq!(api_run(&api, &crew, "m").await, RunStatus::Completed);
        assert!(bearers(&desk.requests_to("/api/")).iter().all(|k| k.as_deref() == Some(FIRST)), "the key, trimmed, is sent");

        api.set_api_key(NAME, SECOND).expect("the key is replaced");
        let before = desk.requests_to("/api/").len();
        assert_eq!(api_run(&api, &crew, "m").await, RunStatus::Completed);
        assert!(bearers(&desk.requests_to("/api/")[before..]).iter().all(|k| k.as_deref() == Some(SECOND)), "the new key is sent");

        let listed = serde_json::to_string(&api.list_models(false).await.unwrap()).unwrap();
        assert!(!listed.contains(FIRST) && !listed.contains(SECOND), "Settings never show the key: {listed}");

        assert!(api.remove_api_key(NAME).expect("removed"), "there was a key to remove");
        assert_eq!(api_key_origin(&api, "m").await, None);
        let before = desk.requests_to("/api/").len();
        assert_eq!(api_run(&api, &crew, "m").await, RunStatus::Completed);
        assert!(bearers(&desk.requests_to("/api/")[before..]).iter().all(Option::is_none), "no key sent once removed");
        assert!(!api.remove_api_key(NAME).expect("nothing to remove is no error"), "nothing was left to remove");
    });
}
