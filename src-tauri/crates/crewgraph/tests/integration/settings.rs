//! The window's Settings through the API: models added as a form describes them,
//! listed with the name their key is kept under (never the key), made default,
//! removed, with a price or without (half a price or a negative one refused); keys
//! refused when blank. (The keyring itself is not exercised: there is
//! no Secret Service here; the environment fallback is, in `models`.)

use std::sync::Arc;

use crewgraph::api::{Api, ApiErrorCode, ModelRequest};
use crewgraph_store::SqliteStore;

use crate::support::block_on;

fn request(provider: &str, model: &str) -> ModelRequest {
    ModelRequest {
        provider: provider.into(),
        model: Some(model.into()),
        base_url: Some("".into()),
        key_name: Some("work-openai".into()),
        max_tokens: None,
        context_window: None,
        input_price: None,
        output_price: None,
        default: Some(true),
    }
}

#[test]
fn a_model_added_from_the_form_is_listed_with_its_key_name_and_becomes_the_default() {
    let sandbox = tempfile::tempdir().unwrap();
    let api = Api::new(sandbox.path()).with_sqlite(Arc::new(SqliteStore::open(sandbox.path().join("c.db")).unwrap()));
    block_on(async {
        api.put_model("fast", request("openai", "gpt-4o-mini")).await.unwrap();
        let models = api.list_models(false).await.unwrap();
        let fast = models.iter().find(|m| m.name == "fast").expect("the new model");
        assert_eq!((fast.provider.as_str(), fast.model.as_str(), fast.default), ("openai", "gpt-4o-mini", true));
        assert_eq!(fast.key_name.as_deref(), Some("work-openai"));
        assert_eq!(fast.base_url, "https://api.openai.com/v1", "an empty base URL is the provider's own");
        let local = models.iter().find(|m| m.name == "local").unwrap();
        assert!(!local.default && local.key_name.is_none());

        api.set_default_model("local").await.unwrap();
        api.remove_model("fast").await.unwrap();
        assert!(api.list_models(false).await.unwrap().iter().all(|m| m.name != "fast"));

        let priced = ModelRequest { input_price: Some(0.15), output_price: Some(0.6), ..request("openai", "gpt-4o-mini") };
        api.put_model("priced", priced).await.unwrap();
        let listed = api.list_models(false).await.unwrap();
        let priced = listed.iter().find(|m| m.name == "priced").unwrap();
        assert_eq!((priced.input_price, priced.output_price), (Some(0.15), Some(0.6)));
        for (input, output, why) in [(Some(0.15), None, "both halves"), (Some(-1.0), Some(0.6), "0 or more")] {
            let half = ModelRequest { input_price: input, output_price: output, ..request("openai", "x") };
            let error = api.put_model("half", half).await.unwrap_err();
            assert!(error.code == ApiErrorCode::InvalidInput && error.message.contains(why), "{error:?}");
        }

        let unknown = api.put_model("odd", request("telepathy", "x")).await.unwrap_err();
        assert_eq!(unknown.code, ApiErrorCode::InvalidInput);
        assert_eq!(unknown.message, "unknown provider 'telepathy' (known: openai, anthropic, local)");
    });
}

#[test]
fn a_blank_key_is_refused_before_the_keyring_is_asked() {
    let api = Api::new(".");
    let error = api.set_api_key("openai", "   ").unwrap_err();
    assert_eq!((error.code, error.message.as_str()), (ApiErrorCode::InvalidInput, "an API key needs a name and the key itself"));
    assert_eq!(api.set_api_key(" ", "sk-123").unwrap_err().code, ApiErrorCode::InvalidInput);
}

#[test]
fn a_context_window_is_kept_when_believable_and_refused_in_words_when_not() {
    let sandbox = tempfile::tempdir().unwrap();
    let api = Api::new(sandbox.path()).with_sqlite(Arc::new(SqliteStore::open(sandbox.path().join("c.db")).unwrap()));
    block_on(async {
        let windowed = ModelRequest { context_window: Some(32_768), max_tokens: Some(1024), ..request("openai", "qwen") };
        api.put_model("qwen", windowed).await.unwrap();
        let listed = api.list_models(false).await.unwrap();
        let qwen = listed.iter().find(|m| m.name == "qwen").unwrap();
        assert_eq!((qwen.context_window, qwen.max_tokens), (Some(32_768), Some(1024)));
        for (window, reply, why) in [
            (0, None, "cannot be right"),
            (1_000_000_000_000u64 as u32, None, "cannot be right"),
            (100, None, "cannot be right"),
            (4096, Some(4096), "must be less than the context window"),
        ] {
            let bad = ModelRequest { context_window: Some(window), max_tokens: reply, ..request("openai", "qwen") };
            let error = api.put_model("bad", bad).await.unwrap_err();
            assert!(error.code == ApiErrorCode::InvalidInput && error.message.contains(why), "{window}: {error:?}");
        }
    });
}

#[test]
fn model_server_addresses_are_a_setting_checked_as_host_and_port() {
    let sandbox = tempfile::tempdir().unwrap();
    let api = Api::new(sandbox.path()).with_sqlite(Arc::new(SqliteStore::open(sandbox.path().join("c.db")).unwrap()));
    block_on(async {
        let usual = api.model_servers().await.unwrap();
        assert!(usual.contains(&"127.0.0.1:11434".to_owned()) && usual.contains(&"127.0.0.1:1234".to_owned()), "{usual:?}");
        api.set_model_servers(vec!["127.0.0.1:9999".into(), " http://localhost:8081/ ".into()]).await.unwrap();
        assert_eq!(api.model_servers().await.unwrap(), ["127.0.0.1:9999", "localhost:8081"]);
        for bad in ["nowhere", "127.0.0.1:0", "127.0.0.1:99999", ":80", "host/path:80"] {
            let error = api.set_model_servers(vec![bad.into()]).await.unwrap_err();
            assert!(error.code == ApiErrorCode::InvalidInput && error.message.contains("write it as host:port"), "{bad}: {error:?}");
        }
        api.set_model_servers(Vec::new()).await.unwrap();
        assert_eq!(api.model_servers().await.unwrap(), usual, "no addresses means the usual ones");
        // Nothing listens at a port just freed: nothing is found, quickly.
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
        api.set_model_servers(vec![free]).await.unwrap();
        assert!(api.discover_models().await.unwrap().is_empty());
    });
}
