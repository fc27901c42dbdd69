//! Messages between machines that nobody needs to keep, on Redis pub/sub: a run's
//! live events from the worker executing it to the API nodes whose watchers follow
//! it ([`run_channel`]), and requests to the workers ([`CONTROL`]: cancel a run).
//! A message nobody was listening for is gone — which is fine, because none holds
//! state: a watcher catches up from the store by seq, and a request is repeated by
//! the person who made it.
//!
//! - [`Publisher`]: publishes from code that must not wait (a run's event sink): a
//!   bounded queue drained by one task, which sends whatever has come in as one
//!   pipeline. When Redis is slow or away the queue fills and messages are dropped
//!   and counted, never waited for.
//! - [`Listener`]: one pub/sub connection per process, subscribed to a channel
//!   while someone listens to it ([`Listener::listen`], which returns once Redis
//!   has the subscription on), opened again (with every channel still listened
//!   to) when it was lost.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::{broadcast, mpsc};

use crate::queue::RedisQueue;

/// The channel of run `id`'s live events.
pub fn run_channel(id: &str) -> String {
    format!("crewgraph:run:{id}")
}

/// The channel of requests to every worker.
pub const CONTROL: &str = "crewgraph:control";

/// How many messages may wait to be published before new ones are dropped.
const BACKLOG: usize = 65_536;
/// How many messages one pipeline sends at most.
const BATCH: usize = 512;
/// How many messages a listener may fall behind before it misses some.
const LISTEN_CAPACITY: usize = 4096;
/// How long [`Listener::listen`] waits for Redis to confirm a subscription.
const SUBSCRIBED_WITHIN: Duration = Duration::from_secs(2);
/// How long the listener waits before opening a lost connection again, at most.
const RECONNECT_AT_MOST: Duration = Duration::from_secs(2);

/// Publishes messages without waiting (see the module's overview).
#[derive(Debug)]
pub struct Publisher {
    sender: mpsc::Sender<(String, String)>,
    dropped: Arc<AtomicU64>,
}

impl Publisher {
    /// A publisher on `queue`'s Redis; its task runs on the current runtime until
    /// the publisher is dropped.
    pub fn start(queue: &RedisQueue) -> Publisher {
        let (sender, mut receiver) = mpsc::channel::<(String, String)>(BACKLOG);
        let dropped = Arc::new(AtomicU64::new(0));
        let (queue, lost) = (queue.clone(), dropped.clone());
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(BATCH);
            while receiver.recv_many(&mut batch, BATCH).await > 0 {
                let mut pipe = redis::pipe();
                for (channel, payload) in &batch {
                    pipe.publish(channel, payload).ignore();
                }
                let mut connection = queue.connection();
                if pipe.query_async::<()>(&mut connection).await.is_err() {
                    lost.fetch_add(batch.len() as u64, Ordering::Relaxed);
                }
                batch.clear();
            }
        });
        Publisher { sender, dropped }
    }

    /// Publishes `payload` on `channel`, or drops it when too many wait already.
    pub fn publish(&self, channel: String, payload: String) {
        if self.sender.try_send((channel, payload)).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many messages were dropped so far (a slow or unreachable Redis).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// What the listener's task is asked to do.
enum Command {
    /// Subscribe; say so on the sender once Redis has the subscription on.
    Subscribe(String, Option<tokio::sync::oneshot::Sender<()>>),
    Unsubscribe(String),
}

/// One process's subscriptions (see the module's overview).
#[derive(Debug)]
pub struct Listener {
    channels: Mutex<HashMap<String, broadcast::Sender<String>>>,
    commands: mpsc::UnboundedSender<Command>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Subscribe(channel, _) => write!(f, "subscribe {channel}"),
            Command::Unsubscribe(channel) => write!(f, "unsubscribe {channel}"),
        }
    }
}

/// A listener's hold on one channel: its messages, from the moment Redis has the
/// subscription on. Dropping the last hold on a channel unsubscribes it.
#[derive(Debug)]
pub struct Listening {
    channel: String,
    receiver: broadcast::Receiver<String>,
    listener: Arc<Listener>,
}

impl Listening {
    /// The next message; None when messages were missed (the listener fell behind,
    /// or its connection was lost and opened again) — the caller catches up from the
    /// store, and may go on receiving.
    pub async fn next(&mut self) -> Option<String> {
        loop {
            match self.receiver.recv().await {
                Ok(message) => return Some(message),
                Err(broadcast::error::RecvError::Lagged(_)) => return None,
                // The sender lives as long as this hold does: only a dropped listener closes it.
                Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
            }
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut channels = self.listener.channels();
        if channels.get(&self.channel).is_some_and(|sender| sender.receiver_count() <= 1) {
            channels.remove(&self.channel);
            let _ = self.listener.commands.send(Command::Unsubscribe(self.channel.clone()));
        }
    }
}

impl Listener {
    /// A listener on `queue`'s Redis; its task runs on the current runtime for as
    /// long as the listener lives.
    pub fn start(queue: &RedisQueue) -> Arc<Listener> {
        let (commands, received) = mpsc::unbounded_channel();
        let listener = Arc::new(Listener { channels: Mutex::new(HashMap::new()), commands });
        tokio::spawn(run(queue.clone(), Arc::downgrade(&listener), received));
        listener
    }

    fn channels(&self) -> MutexGuard<'_, HashMap<String, broadcast::Sender<String>>> {
        self.channels.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Listens to `channel` (subscribing when nobody did yet). Returns once Redis
    /// has the subscription on — so whatever is published from then on is heard —
    /// or after `SUBSCRIBED_WITHIN` when Redis does not answer (messages are then
    /// missed until it does, which a listener must bear anyway).
    pub async fn listen(self: &Arc<Self>, channel: &str) -> Listening {
        let (receiver, confirmed) = {
            let mut channels = self.channels();
            match channels.get(channel) {
                // Subscribed already (or being subscribed for another listener: a moment early).
                Some(sender) => (sender.subscribe(), None),
                None => {
                    let (sender, receiver) = broadcast::channel(LISTEN_CAPACITY);
                    channels.insert(channel.to_owned(), sender);
                    let (done, confirmed) = tokio::sync::oneshot::channel();
                    let _ = self.commands.send(Command::Subscribe(channel.to_owned(), Some(done)));
                    (receiver, Some(confirmed))
                }
            }
        };
        if let Some(confirmed) = confirmed {
            let _ = tokio::time::timeout(SUBSCRIBED_WITHIN, confirmed).await;
        }
        Listening { channel: channel.to_owned(), receiver, listener: self.clone() }
    }

    /// Hands `payload` to the listeners of `channel`.
    fn deliver(&self, channel: &str, payload: String) {
        if let Some(sender) = self.channels().get(channel) {
            let _ = sender.send(payload);
        }
    }

    /// The channels listened to now.
    fn listened(&self) -> Vec<String> {
        self.channels().keys().cloned().collect()
    }
}

/// The listener's task: one connection at a time, subscribed to every channel
/// listened to, until the listener is dropped.
async fn run(queue: RedisQueue, listener: std::sync::Weak<Listener>, mut commands: mpsc::UnboundedReceiver<Command>) {
    let mut wait = Duration::from_millis(50);
    loop {
        let Ok(pubsub) = queue.client().get_async_pubsub().await else {
            if listener.strong_count() == 0 {
                return;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(RECONNECT_AT_MOST);
            continue;
        };
        wait = Duration::from_millis(50);
        let (mut sink, mut stream) = pubsub.split();
        // Whatever was listened to before (and whatever was asked meanwhile).
        while commands.try_recv().is_ok() {}
        let Some(current) = listener.upgrade() else { return };
        let channels = current.listened();
        drop(current);
        if !channels.is_empty() && sink.subscribe(&channels).await.is_err() {
            continue;
        }
        loop {
            tokio::select! {
                command = commands.recv() => {
                    let done = match command {
                        None => return,
                        Some(Command::Subscribe(channel, confirm)) => {
                            let subscribed = sink.subscribe(&channel).await;
                            if let (Ok(()), Some(confirm)) = (&subscribed, confirm) {
                                let _ = confirm.send(());
                            }
                            subscribed
                        }
                        Some(Command::Unsubscribe(channel)) => sink.unsubscribe(&channel).await,
                    };
                    if done.is_err() {
                        break;
                    }
                }
                message = stream.next() => {
                    let Some(message) = message else { break };
                    let Some(current) = listener.upgrade() else { return };
                    if let Ok(payload) = message.get_payload::<String>() {
                        current.deliver(message.get_channel_name(), payload);
                    }
                }
            }
        }
        // The connection was lost: listeners may have missed messages; they catch up
        // from the store when they notice (a gap in what they receive, or their poll).
    }
}
