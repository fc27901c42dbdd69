//! The `settings` table: the app's preferences, a JSON value per key
//! (`"default_model"` → `"gpt-4o-mini"`). Secrets do not belong here.

use crewgraph_engine::run::StoreError;

use super::runs::get;
use crate::error::Fault;
use crate::store::PostgresStore;

pub(crate) const V1: &str = "
CREATE TABLE settings (
    key   text PRIMARY KEY,
    value json NOT NULL
);
";

const GET: &str = "SELECT value::text FROM settings WHERE key = $1";

const SET: &str = "INSERT INTO settings (key, value) VALUES ($1, $2::text::json) ON CONFLICT (key) DO UPDATE SET value = excluded.value";

impl PostgresStore {
    /// A setting's value; None when it was never set.
    pub async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        let read = async {
            let rows = self.query(GET, &[&key]).await?;
            let Some(row) = rows.first() else { return Ok(None) };
            let text: String = get(row, 0)?;
            serde_json::from_str(&text).map(Some).map_err(|err| Fault::Unreadable(format!("the setting '{key}' cannot be read: {err}")))
        };
        read.await.map_err(|fault: Fault| fault.describe(&format!("read the setting '{key}'"), self.place()))
    }

    /// Sets a setting, replacing its value.
    pub async fn set_setting(&self, key: &str, value: &serde_json::Value) -> Result<(), StoreError> {
        let set = async {
            let text =
                serde_json::to_string(value).map_err(|err| Fault::Unwritable(format!("the value does not encode as JSON: {err}")))?;
            self.query(SET, &[&key, &text]).await?;
            Ok(())
        };
        set.await.map_err(|fault: Fault| fault.describe(&format!("save the setting '{key}'"), self.place()))
    }
}
