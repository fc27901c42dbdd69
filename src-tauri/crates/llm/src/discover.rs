//! The model servers already running on this computer: Ollama, LM Studio, llama.cpp's
//! server, vLLM, Jan and LocalAI, each asked at its usual loopback address
//! ([`DEFAULT_ADDRESSES`]; the addresses are a setting), all at once and each within
//! [`PROBE_LIMIT`], so a look finds what answers without keeping anyone waiting.
//! Each server that answers `GET /v1/models` is listed with its models and what kind
//! of server it seems to be.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;
use utoipa::ToSchema;

/// Where the usual local model servers listen: Ollama, LM Studio, llama.cpp's server
/// (and LocalAI), vLLM, Jan.
pub const DEFAULT_ADDRESSES: &[&str] = &["127.0.0.1:11434", "127.0.0.1:1234", "127.0.0.1:8080", "127.0.0.1:8000", "127.0.0.1:1337"];
/// How long one server may take to answer, connecting included.
pub const PROBE_LIMIT: Duration = Duration::from_millis(800);
/// The settings key of the addresses to look at.
pub const SETTING: &str = "model_servers";

/// A model server found running.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, ToSchema)]
#[ts(export)]
pub struct FoundServer {
    /// What it seems to be: "Ollama", "LM Studio", "llama.cpp", "vLLM", "Jan", "LocalAI",
    /// or "an OpenAI-compatible server".
    pub kind: String,
    /// Its OpenAI-compatible address, as a model's base URL (`http://127.0.0.1:11434/v1`).
    pub base_url: String,
    /// The models it serves, by the names requests use.
    pub models: Vec<String>,
}

/// Looks at each of `addresses` (`host:port`) at once and lists those where an
/// OpenAI-compatible model server answers, in the order given.
pub async fn discover(addresses: &[String]) -> Vec<FoundServer> {
    let client = reqwest::Client::builder().connect_timeout(PROBE_LIMIT).timeout(PROBE_LIMIT).build().unwrap_or_default();
    let found = futures_util::future::join_all(addresses.iter().map(|address| probe(&client, address))).await;
    found.into_iter().flatten().collect()
}

/// The server at `address`, when one answers there.
async fn probe(client: &reqwest::Client, address: &str) -> Option<FoundServer> {
    let root = format!("http://{}", address.trim().trim_start_matches("http://").trim_end_matches('/'));
    let get = |path: &str| {
        let request = client.get(format!("{root}{path}")).send();
        async move {
            let response = request.await.ok()?.error_for_status().ok()?;
            response.json::<Value>().await.ok()
        }
    };
    let listed = get("/v1/models").await?;
    let models: Vec<String> = listed
        .get("data")
        .and_then(Value::as_array)?
        .iter()
        .filter_map(|model| model.get("id").and_then(Value::as_str).map(str::to_owned))
        .take(200)
        .collect();
    let (props, tags, lm_studio) = tokio::join!(get("/props"), get("/api/tags"), get("/api/v0/models"));
    let owned_by = listed.pointer("/data/0/owned_by").and_then(Value::as_str).unwrap_or_default().to_lowercase();
    let kind = if props.is_some() {
        "llama.cpp"
    } else if tags.is_some() {
        "Ollama"
    } else if lm_studio.is_some() {
        "LM Studio"
    } else if owned_by.contains("vllm") {
        "vLLM"
    } else if owned_by.contains("jan") || address.ends_with(":1337") {
        "Jan"
    } else if owned_by.contains("localai") {
        "LocalAI"
    } else {
        "an OpenAI-compatible server"
    };
    Some(FoundServer { kind: kind.to_owned(), base_url: format!("{root}/v1"), models })
}
