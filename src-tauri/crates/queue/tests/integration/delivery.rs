//! Every job to exactly one worker, and a dead worker's jobs to another.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crewgraph_queue::testing::RedisServer;
use crewgraph_queue::{Job, JobKind, RedisQueue};

/// Generous: a busy machine makes the test slower, not red.
const WAIT: Duration = Duration::from_secs(60);

fn job(n: usize) -> Job {
    Job { run_id: format!("run-{n:03}"), kind: if n.is_multiple_of(3) { JobKind::Resume } else { JobKind::Start } }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_jobs_through_three_workers_go_each_to_exactly_one() {
    let redis = RedisServer::start().unwrap();
    let queue = RedisQueue::connect(&redis.url()).await.unwrap();
    for n in 0..200 {
        queue.enqueue(&job(n)).await.unwrap();
    }
    let mut workers = Vec::new();
    for name in ["worker-a", "worker-b", "worker-c"] {
        let (queue, mut consumer) = (queue.clone(), queue.consumer(name).await.unwrap());
        workers.push(tokio::spawn(async move {
            let mut done = Vec::new();
            // Reads until a read waits 300 ms for nothing: the stream is drained.
            loop {
                let deliveries = consumer.next(7, Duration::from_millis(300)).await.unwrap();
                if deliveries.is_empty() {
                    return done;
                }
                for delivery in deliveries {
                    done.push(delivery.job.clone().unwrap());
                    queue.ack(&delivery.id).await.unwrap();
                }
            }
        }));
    }
    let mut times: HashMap<Job, usize> = HashMap::new();
    let mut by_worker = Vec::new();
    for worker in workers {
        let done = worker.await.unwrap();
        by_worker.push(done.len());
        for job in done {
            *times.entry(job).or_default() += 1;
        }
    }
    assert_eq!(times.len(), 200, "every job was handed out");
    assert!(times.values().all(|&n| n == 1), "none twice: {:?}", times.iter().filter(|(_, &n)| n > 1).collect::<Vec<_>>());
    assert!((0..200).all(|n| times.contains_key(&job(n))), "each as it was enqueued");
    assert_eq!(by_worker.iter().sum::<usize>(), 200, "{by_worker:?}");
    assert_eq!(
        (queue.pending().await.unwrap(), queue.queued().await.unwrap()),
        (0, 0),
        "acknowledged entries leave the group and the stream"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_workers_jobs_go_to_another_after_the_lease_and_not_before() {
    let redis = RedisServer::start().unwrap();
    let queue = RedisQueue::connect(&redis.url()).await.unwrap();
    for n in 0..5 {
        queue.enqueue(&job(n)).await.unwrap();
    }
    // The first worker reads every job, then dies without acknowledging any.
    let mut doomed = queue.consumer("worker-doomed").await.unwrap();
    let read = doomed.next(10, Duration::from_secs(5)).await.unwrap();
    assert_eq!(read.len(), 5);
    drop(doomed);
    assert_eq!(queue.pending().await.unwrap(), 5, "pending under the dead worker's name");
    // Within the lease they are its own still: a long lease takes none over.
    assert!(queue.reclaim("worker-b", Duration::from_secs(3600), 10).await.unwrap().is_empty());
    // Nor does a new read: they were handed out already.
    let mut survivor = queue.consumer("worker-b").await.unwrap();
    assert!(survivor.next(10, Duration::from_millis(200)).await.unwrap().is_empty());
    // Once they have been idle longer than a short lease, the survivor takes them all, in order.
    let lease = Duration::from_millis(200);
    let deadline = Instant::now() + WAIT;
    let mut taken = Vec::new();
    while taken.len() < 5 && Instant::now() < deadline {
        taken.extend(queue.reclaim("worker-b", lease, 10).await.unwrap());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let jobs: Vec<Job> = taken.iter().map(|d| d.job.clone().unwrap()).collect();
    assert_eq!(jobs, (0..5).map(job).collect::<Vec<_>>());
    for delivery in &taken {
        queue.ack(&delivery.id).await.unwrap();
    }
    assert_eq!(queue.pending().await.unwrap(), 0);
    assert!(queue.reclaim("worker-c", Duration::ZERO, 10).await.unwrap().is_empty(), "an acknowledged job is nobody's to take");
}
