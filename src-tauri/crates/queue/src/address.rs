//! Queue addresses: `redis://[user:password@]host[:port][/db]` is accepted; the
//! address is named in messages as `host:port` only, so a password written in it
//! never reaches a log or an error.

use crate::error::QueueError;

/// A queue address checked: the client it opens, and how messages name it.
pub(crate) struct Address {
    pub(crate) client: redis::Client,
    /// `host:port`, for messages.
    pub(crate) shown: String,
}

/// Checks `url`: a `redis://` address the client can open.
pub(crate) fn parse(url: &str) -> Result<Address, QueueError> {
    let url = url.trim();
    if !url.starts_with("redis://") {
        return Err(QueueError::BadAddress(format!(
            "'{}' is not a Redis address: it must start with redis:// (for example redis://127.0.0.1:6379)",
            redacted(url)
        )));
    }
    let client = redis::Client::open(url).map_err(|err| {
        QueueError::BadAddress(format!(
            "'{}' is not a Redis address Crewgraph can use: {}",
            redacted(url),
            err.detail().unwrap_or("it could not be read")
        ))
    })?;
    let shown = match &client.get_connection_info().addr() {
        redis::ConnectionAddr::Tcp(host, port) => format!("{host}:{port}"),
        other => other.to_string(),
    };
    Ok(Address { client, shown })
}

/// `url` without what comes before an `@` (a user and password).
fn redacted(url: &str) -> String {
    match (url.split_once("://"), url.rsplit_once('@')) {
        (Some((scheme, _)), Some((_, rest))) => format!("{scheme}://…@{rest}"),
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redis_address_is_named_by_host_and_port_and_others_are_refused_in_words() {
        assert_eq!(parse("redis://127.0.0.1:6390").map(|a| a.shown).unwrap(), "127.0.0.1:6390");
        assert_eq!(parse(" redis://user:secret@10.0.0.2:7000/2 ").map(|a| a.shown).unwrap(), "10.0.0.2:7000");
        let Err(refused) = parse("http://user:secret@queue:6379") else { panic!("an http address is no queue") };
        let message = refused.to_string();
        assert!(message.contains("must start with redis://"), "{message}");
        assert!(!message.contains("secret"), "the password stays out of messages: {message}");
    }
}
