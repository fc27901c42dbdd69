//! Validating a crew on its own (`crewgraph validate`, `GET /crews/{crew}/validation`):
//! every problem of the crew with its runtime agents, errors first, as a list the
//! window's problems panel and a script can both read — without the graph that
//! opening a crew builds.

use std::path::Path;

use crewgraph_engine::diagnostic::Diagnostic;
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError};

/// A crew's problems.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct Validation {
    /// False when the crew has errors (it cannot run until they are fixed).
    pub valid: bool,
    pub errors: u32,
    pub warnings: u32,
    /// Errors first, then warnings, each in the order the loader found them.
    #[schema(value_type = Vec<Object>)]
    pub diagnostics: Vec<Diagnostic>,
}

impl Api {
    /// Every problem of the crew at `path` (its runtime agents included). A crew that
    /// cannot even be read is not an error here: the reason is its one diagnostic.
    pub async fn validate_crew(&self, path: &Path) -> Result<Validation, ApiError> {
        self.refresh_app_servers().await;
        let loaded = self.known_tools(self.load_crew(path).await?);
        let diagnostics: Vec<Diagnostic> = loaded.errors().chain(loaded.warnings()).cloned().collect();
        Ok(Validation {
            valid: loaded.is_valid(),
            errors: loaded.errors().count() as u32,
            warnings: loaded.warnings().count() as u32,
            diagnostics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crews() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../crews")
    }

    #[tokio::test]
    async fn a_valid_example_crew_has_no_errors() {
        let validation = Api::new(crews()).validate_crew(&crews().join("exam.yaml")).await.unwrap();
        assert!(validation.valid, "{:?}", validation.diagnostics);
        assert_eq!(validation.errors, 0);
        assert_eq!(validation.diagnostics.len() as u32, validation.warnings);
    }

    #[tokio::test]
    async fn a_broken_crew_lists_every_error_before_its_warnings() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("broken.yaml");
        std::fs::write(
            &file,
            "name: Broken\nentry_point: nobody\nagents:\n  - id: a\n    system_prompt: hi\n    handoff_targets: [ghost]\n",
        )
        .unwrap();
        let validation = Api::new(dir.path()).validate_crew(&file).await.unwrap();
        assert!(!validation.valid);
        assert!(validation.errors >= 2, "entry point and handoff target: {:?}", validation.diagnostics);
        let first_warning = validation.diagnostics.iter().position(|d| !d.is_error()).unwrap_or(validation.diagnostics.len());
        assert!(validation.diagnostics[first_warning..].iter().all(|d| !d.is_error()), "errors come first");
        assert!(validation.diagnostics.iter().any(|d| d.message == "entry_point 'nobody' is not an agent"));
    }
}
