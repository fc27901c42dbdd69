//! What machines tell each other without keeping it: messages published reach
//! every listener of their channel (and none of another's), a listener survives a
//! Redis restart (subscribed again), a publisher never waits; and the stream's
//! runs, as a sweeper reads them.

use std::time::{Duration, Instant};

use crewgraph_queue::testing::RedisServer;
use crewgraph_queue::{run_channel, Job, JobKind, Listener, Publisher, RedisQueue};

const DEADLINE: Duration = Duration::from_secs(30);

/// Publishes `payload` every 50 ms until `listening` receives it (a subscription
/// takes effect some moments after it is asked for).
async fn until_heard(publisher: &Publisher, channel: &str, listening: &mut crewgraph_queue::Listening, payload: &str) {
    let started = Instant::now();
    loop {
        publisher.publish(channel.to_owned(), payload.to_owned());
        if let Ok(Some(heard)) = tokio::time::timeout(Duration::from_millis(50), listening.next()).await {
            if heard == payload {
                return;
            }
        }
        assert!(started.elapsed() < DEADLINE, "'{payload}' never reached the listener of {channel}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_messages_reach_its_listeners_only_and_again_after_a_restart() {
    let mut redis = RedisServer::start().expect("redis-server");
    let queue = RedisQueue::connect(&redis.url()).await.expect("connect");
    let publisher = Publisher::start(&queue);
    let listener = Listener::start(&queue);
    let (one, two) = (run_channel("run-1"), run_channel("run-2"));
    let mut first = listener.listen(&one).await;
    let mut other = listener.listen(&two).await;
    until_heard(&publisher, &one, &mut first, "hello").await;
    // A second listener of the same channel hears what comes next, too.
    let mut second = listener.listen(&one).await;
    publisher.publish(one.clone(), "both".into());
    for listening in [&mut first, &mut second] {
        let heard = tokio::time::timeout(DEADLINE, async {
            loop {
                if let Some(message) = listening.next().await {
                    if message == "both" {
                        return message;
                    }
                }
            }
        });
        assert_eq!(heard.await.expect("heard"), "both");
    }
    assert!(tokio::time::timeout(Duration::from_millis(200), other.next()).await.is_err(), "run-2's listener hears nothing of run-1");
    assert_eq!(publisher.dropped(), 0, "a Redis that is there drops nothing");

    redis.restart().expect("restart");
    until_heard(&publisher, &one, &mut first, "after the restart").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_publisher_without_redis_drops_and_counts_never_waits() {
    let mut redis = RedisServer::start().expect("redis-server");
    let queue = RedisQueue::connect(&redis.url()).await.expect("connect");
    let publisher = Publisher::start(&queue);
    redis.stop();
    let started = Instant::now();
    for n in 0..100_000 {
        publisher.publish(run_channel("run-1"), format!("event {n}"));
    }
    assert!(started.elapsed() < DEADLINE, "publishing does not wait for Redis");
    let deadline = Instant::now() + DEADLINE;
    while publisher.dropped() == 0 {
        assert!(Instant::now() < deadline, "messages Redis could not take are counted as dropped");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queued_runs_are_those_of_the_entries_not_yet_acknowledged() {
    let redis = RedisServer::start().expect("redis-server");
    let queue = RedisQueue::connect(&redis.url()).await.expect("connect");
    assert!(queue.queued_runs().await.unwrap().is_empty());
    // More than one page of the stream's range.
    for n in 0..2_500 {
        queue.enqueue(&Job { run_id: format!("run-{n}"), kind: JobKind::Start }).await.unwrap();
    }
    let queued = queue.queued_runs().await.unwrap();
    assert_eq!(queued.len(), 2_500);
    let mut worker = queue.consumer("worker-a").await.unwrap();
    let handed = worker.next(10, Duration::from_secs(2)).await.unwrap();
    assert_eq!(queue.queued_runs().await.unwrap().len(), 2_500, "handed to a worker and not acknowledged: still queued");
    for delivery in &handed {
        queue.ack(&delivery.id).await.unwrap();
    }
    let queued = queue.queued_runs().await.unwrap();
    assert_eq!(queued.len(), 2_490);
    for delivery in handed {
        assert!(!queued.contains(&delivery.job.unwrap().run_id));
    }
}
