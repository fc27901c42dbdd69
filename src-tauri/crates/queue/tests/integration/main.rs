//! The queue against a real `redis-server` started by each test (the `testing`
//! feature): [`delivery`] — every job to exactly one worker, dead workers' jobs
//! taken over after the lease; [`faults`] — a Redis restarted empty, one that is
//! not there, entries that are not jobs; [`channels`] — live messages between
//! machines (pub/sub) and the runs the stream names.

mod channels;
mod delivery;
mod faults;
