//! The `crews` table: every crew the store has heard of, by the path of its file
//! or folder. A crew's content lives in its revisions (`crew_revisions`), its
//! runtime agents in `runtime_agents`; the row only gives the crew a number the
//! other tables refer to.

pub(crate) const V1: &str = "
CREATE TABLE crews (
    id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    path text NOT NULL UNIQUE   -- the crew file or folder
);
";

/// The crew's number, adding the crew when it is new. Its `DO UPDATE` (which
/// changes nothing) locks the crew's row until the transaction ends, so writers
/// of one crew's rows take turns.
pub(crate) const ENSURE: &str = "
INSERT INTO crews (path) VALUES ($1) ON CONFLICT (path) DO UPDATE SET path = excluded.path RETURNING id";
