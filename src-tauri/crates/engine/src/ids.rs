//! Newtype identifiers for the things a crew names: agents, parallel groups and
//! signals. They keep an agent id from being passed where a group id is meant, and
//! they cross to the UI as plain strings.

use std::borrow::Borrow;
use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
        #[ts(type = "string")]
        pub struct $name(String);

        impl $name {
            /// Wraps a string as this kind of id (no validation; validation happens on load).
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
    };
}

string_id!(
    /// The id of an agent, unique within a crew (`teacher`).
    AgentId
);
string_id!(
    /// The id of a parallel group, unique within a crew and distinct from agent ids.
    GroupId
);
string_id!(
    /// A signal's registered name: `[QUESTION]` for bracket signals, a plain
    /// identifier (`review-ready`) for pattern signals. Case-sensitive.
    SignalName
);
string_id!(
    /// The id of a run (`run-…`), unique within a store.
    RunId
);
