//! A Redis restarted empty under a worker, one that is not there, an address that
//! is none, entries that are not jobs: each a clear error or carried on through.

use std::time::{Duration, Instant};

use crewgraph_queue::testing::RedisServer;
use crewgraph_queue::{Job, JobKind, QueueError, RedisQueue, STREAM};

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restarted_empty_under_a_worker_is_read_again_once_it_is_back() {
    let mut redis = RedisServer::start().unwrap();
    let queue = RedisQueue::connect(&redis.url()).await.unwrap();
    let mut worker = queue.consumer("worker-a").await.unwrap();
    redis.restart().unwrap();
    // Every call is one attempt: the worker's loop tries again with backoff until
    // both connections are back, and the read makes the lost group again.
    let job = Job { run_id: "run-after".into(), kind: JobKind::Start };
    let deadline = Instant::now() + WAIT;
    let mut failures = Vec::new();
    let read = loop {
        assert!(Instant::now() < deadline, "never back: {failures:?}");
        match queue.enqueue(&job).await {
            Ok(_) => {}
            Err(err) => {
                assert!(err.is_unreachable(), "{err}");
                failures.push(err.to_string());
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        }
        match worker.next(10, Duration::from_secs(1)).await {
            Ok(read) if !read.is_empty() => break read,
            Ok(_) => {}
            Err(err) => {
                assert!(err.is_unreachable(), "{err}");
                failures.push(err.to_string());
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    assert_eq!(read[0].job, Ok(job));
    for failure in &failures {
        assert!(failure.starts_with(&format!("the queue at 127.0.0.1:{} could not be reached", redis.port())), "{failure}");
    }
}

#[tokio::test]
async fn a_queue_that_is_not_there_is_said_in_words_with_its_address() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let err = RedisQueue::connect(&format!("redis://127.0.0.1:{port}")).await.unwrap_err();
    assert!(err.is_unreachable());
    assert_eq!(
        err.to_string(),
        format!("the queue at 127.0.0.1:{port} could not be reached to connect: nothing is listening there (is redis-server running?)")
    );
    let err = RedisQueue::connect("postgres://127.0.0.1/runs").await.unwrap_err();
    assert!(matches!(err, QueueError::BadAddress(_)), "{err:?}");
    assert!(err.to_string().contains("must start with redis://"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_that_is_not_a_job_is_delivered_as_what_is_wrong_with_it_and_the_queue_goes_on() {
    let redis = RedisServer::start().unwrap();
    let queue = RedisQueue::connect(&redis.url()).await.unwrap();
    // Something else writes to the stream.
    let client = redis::Client::open(redis.url()).unwrap();
    let mut raw = client.get_multiplexed_async_connection().await.unwrap();
    let _: String = redis::cmd("XADD").arg(STREAM).arg("*").arg("hello").arg("world").query_async(&mut raw).await.unwrap();
    let job = Job { run_id: "run-1".into(), kind: JobKind::Answer };
    queue.enqueue(&job).await.unwrap();
    let mut worker = queue.consumer("worker-a").await.unwrap();
    let read = worker.next(10, Duration::from_secs(5)).await.unwrap();
    assert_eq!(read.len(), 2);
    let bad = read[0].job.clone().unwrap_err();
    assert_eq!(bad.to_string(), "the queue entry is not a Crewgraph job: it has no format field (v): it was not written by Crewgraph");
    assert_eq!(read[1].job, Ok(job));
    for delivery in &read {
        queue.ack(&delivery.id).await.unwrap();
    }
    assert_eq!(queue.queued().await.unwrap(), 0);
}
