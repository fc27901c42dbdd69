//! The `RunStore` conformance suite (STYLE.md habit 12): the contract's tests are
//! written once, over a fresh store, and run against every implementation — the
//! SQLite store on real files in temporary folders, the engine's in-memory store,
//! and the PostgreSQL store on a real server the tests start themselves (one per
//! test binary, a new database per test: `crewgraph_store_postgres::testing`) — so
//! all three keep the same promises.
//!
//! - [`round_trip`]: what is written comes back exactly; listing; unknown ids.
//! - [`order`]: every way a step can fail to continue a run, and that nothing of it
//!   is written then.
//! - [`claim`]: the compare-and-set that keeps two resumes apart (of two resumes of
//!   one paused run, exactly one proceeds).
//! - [`lease`]: who executes a run until when — granted, renewed, refused, taken
//!   over once run out, released; of sixteen executors racing, exactly one wins.
//! - [`concurrency`]: many runs writing at once, and two writers racing on one run.
//!
//! SQLite only: [`sqlite_files`] (reopening, damaged, locked and unwritable files),
//! [`sqlite_writes`] (group commit, bytes per step, reads beside a writer),
//! [`sqlite_callers`] (current-thread runtimes and plain threads) and
//! [`sqlite_tables`] (crews, runtime agents, settings).

mod claim;
mod concurrency;
mod lease;
mod order;
mod queued;
mod round_trip;
mod sqlite_callers;
mod sqlite_files;
mod sqlite_tables;
mod sqlite_writes;
mod support;

/// Instantiates each contract test once per store: `memory_store::name`,
/// `sqlite_store::name` and `postgres_store::name`.
macro_rules! for_every_store {
    ($($module:ident::$test:ident),* $(,)?) => {
        mod memory_store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    crate::$module::$test(crate::support::memory()).await
                }
            )*
        }
        mod sqlite_store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    crate::$module::$test(crate::support::sqlite()).await
                }
            )*
        }
        mod postgres_store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    crate::$module::$test(crate::support::postgres(stringify!($test)).await).await
                }
            )*
        }
    };
}

for_every_store!(
    round_trip::a_created_run_loads_back_exactly,
    round_trip::every_event_variant_round_trips,
    round_trip::every_message_shape_round_trips,
    round_trip::appended_steps_extend_the_run_in_order,
    round_trip::a_step_without_events_still_moves_the_snapshot,
    round_trip::events_after_a_seq_are_only_the_later_ones,
    round_trip::unknown_run_ids_are_none_or_no_such_run,
    round_trip::creating_a_run_twice_is_already_exists_and_keeps_the_first,
    round_trip::runs_are_listed_newest_first_with_their_latest_snapshot,
    round_trip::runs_are_listed_by_creation_time_not_by_the_order_they_were_stored,
    round_trip::what_each_call_was_given_comes_back_step_by_step,
    order::a_step_skipping_a_seq_is_refused,
    order::a_step_repeating_stored_seqs_is_refused,
    order::a_step_with_a_gap_inside_is_refused,
    order::a_step_with_another_runs_event_is_refused,
    order::a_snapshot_next_seq_that_disagrees_with_the_events_is_refused,
    order::a_snapshot_history_len_that_disagrees_with_the_history_is_refused,
    order::a_first_step_not_starting_at_seq_zero_is_refused,
    order::a_refused_step_leaves_the_run_writable,
    claim::claiming_a_paused_run_moves_it_to_running_once,
    claim::claim_from_a_status_the_run_is_not_in_changes_nothing,
    claim::of_two_concurrent_claims_exactly_one_wins,
    claim::claiming_an_unknown_run_is_no_such_run,
    lease::a_free_run_is_leased_to_its_first_asker_and_nothing_else_changes,
    lease::while_a_lease_runs_another_owner_is_refused_and_told_who_holds_it_until_when,
    lease::a_lease_renewed_by_its_holder_moves_its_expiry,
    lease::an_expired_lease_is_taken_over_and_its_old_holder_refused,
    lease::a_release_lets_another_take_the_lease_at_once,
    lease::a_release_by_anyone_but_the_lease_holder_changes_nothing,
    lease::of_many_owners_racing_for_a_free_runs_lease_exactly_one_wins,
    lease::leases_on_two_runs_are_independent,
    lease::a_lease_or_release_of_an_unknown_run_is_no_such_run,
    queued::the_options_a_step_gives_are_kept_until_a_later_step_gives_others,
    queued::the_runnable_runs_are_the_queued_running_ones_nobody_holds_oldest_first,
    concurrency::many_runs_appending_at_once_keep_every_event_in_order,
    concurrency::two_writers_continuing_one_run_at_the_same_seq_exactly_one_wins,
);
