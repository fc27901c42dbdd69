//! The `http_get` tool's fetcher for both hosts (the engine checks the crew's
//! allow-list before it is called): a GET with a timeout, the body as text, and
//! no redirect that could leave the allowed host.

use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::run::HttpFetch;
use tokio_util::sync::CancellationToken;

/// How long a fetch may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(15);

/// Fetches with reqwest.
#[derive(Clone, Debug)]
pub struct WebFetch {
    client: reqwest::Client,
}

impl WebFetch {
    /// A fetcher that does not follow redirects (a redirect could leave the allow-list).
    pub fn new() -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("crewgraph/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self { client })
    }
}

#[async_trait]
impl HttpFetch for WebFetch {
    async fn get(&self, url: &str, cancel: &CancellationToken) -> Result<String, String> {
        let fetch = async {
            let response = self.client.get(url).send().await.map_err(|e| format!("cannot fetch {url}: {e}"))?;
            let status = response.status();
            let body = response.text().await.map_err(|e| format!("cannot read {url}: {e}"))?;
            if status.is_success() {
                Ok(body)
            } else {
                Err(format!("{url} answered {status}"))
            }
        };
        tokio::select! {
            result = fetch => result,
            _ = cancel.cancelled() => Err("cancelled".into()),
        }
    }
}
