//! The `settings` table: the app's preferences, a JSON value per key
//! (`"default_model"` → `"gpt-4o-mini"`). Secrets do not belong here.

use crewgraph_engine::run::StoreError;
use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Fault;
use crate::store::SqliteStore;

pub(crate) const V1: &str = "
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL   -- JSON
) WITHOUT ROWID;
";

fn get(conn: &Connection, key: &str) -> Result<Option<serde_json::Value>, Fault> {
    let text: Option<String> =
        conn.prepare_cached("SELECT value FROM settings WHERE key = ?1")?.query_row([key], |row| row.get(0)).optional()?;
    text.map(|text| serde_json::from_str(&text).map_err(|err| Fault::Unreadable(format!("the setting '{key}' cannot be read: {err}"))))
        .transpose()
}

fn set(conn: &Connection, key: &str, value: &str) -> Result<(), Fault> {
    conn.prepare_cached("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")?
        .execute(params![key, value])?;
    Ok(())
}

impl SqliteStore {
    /// A setting's value; None when it was never set.
    pub async fn setting(&self, key: &str) -> Result<Option<serde_json::Value>, StoreError> {
        let key = key.to_owned();
        self.read(format!("read the setting '{key}'"), move |conn| get(conn, &key)).await
    }

    /// Sets a setting, replacing its value.
    pub async fn set_setting(&self, key: &str, value: &serde_json::Value) -> Result<(), StoreError> {
        let doing = format!("save the setting '{key}'");
        let text = serde_json::to_string(value).map_err(|err| Fault::Unwritable(err.to_string()).describe(&doing, self.path()))?;
        let key = key.to_owned();
        self.write(doing, move |conn, _| set(conn, &key, &text)).await
    }
}
