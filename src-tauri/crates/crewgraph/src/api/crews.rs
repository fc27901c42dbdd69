//! Listing and opening crews: the crews folder for the start view, and one crew
//! (file or Go-engine folder) as a [`CrewDocument`] with its graph and problems.

use std::fs;
use std::path::{Path, PathBuf};

use crewgraph_engine::graph::{CrewGraph, GraphView};
use crewgraph_engine::load::{load_path, Loaded};
use crewgraph_engine::Crew;

use super::{AgentView, ApiError, ApiErrorCode, CrewDocument, CrewSummary, ProblemView};

/// The key a crew is known by wherever the store keeps something about it (runtime
/// agents, revisions, node positions, the recent list, a run's crew): its absolute
/// path, so the same crew reached by a relative path is the same crew.
pub(crate) fn crew_key(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

/// True for what the crews folder offers: YAML files and folders with a crew.yaml.
fn is_crew_entry(path: &Path) -> bool {
    if path.is_dir() {
        path.join("crew.yaml").is_file() || path.join("crew.yml").is_file()
    } else {
        matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
    }
}

pub(super) fn list(dir: &Path) -> Result<Vec<CrewSummary>, ApiError> {
    let entries = fs::read_dir(dir).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound { ApiErrorCode::NotFound } else { ApiErrorCode::Io };
        ApiError::new(code, format!("cannot open the crews folder '{}': {e}", dir.display()))
    })?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| is_crew_entry(p)).collect();
    paths.sort();
    Ok(paths.iter().map(|path| summary(path)).collect())
}

fn summary(path: &Path) -> CrewSummary {
    let loaded = load_path(path);
    let file_name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let errors = loaded.errors().count() as u32;
    let warnings = loaded.warnings().count() as u32;
    match &loaded.crew {
        Some(crew) => CrewSummary {
            path: path.display().to_string(),
            file_name,
            name: crew.name.clone(),
            description: crew.description.clone(),
            strategy: crew.routing.strategy,
            layout: crew.layout,
            agents: crew.agents.len() as u32,
            errors,
            warnings,
            graph: CrewGraph::build(crew).view(crew),
        },
        None => CrewSummary {
            path: path.display().to_string(),
            name: file_name.clone(),
            file_name,
            description: String::new(),
            strategy: Default::default(),
            layout: crewgraph_engine::crew::CrewLayout::File,
            agents: 0,
            errors,
            warnings,
            graph: GraphView::default(),
        },
    }
}

pub(super) fn open(path: &Path) -> CrewDocument {
    let loaded = load_path(path);
    document(path, &loaded)
}

pub(super) fn document(path: &Path, loaded: &Loaded) -> CrewDocument {
    let graph = loaded.crew.as_ref().map(|crew| CrewGraph::build(crew).view(crew)).unwrap_or_default();
    let problems =
        loaded.diagnostics.iter().map(|d| ProblemView { targets: graph.targets_of(&d.subject), diagnostic: d.clone() }).collect();
    let crew: Option<&Crew> = loaded.crew.as_ref();
    CrewDocument {
        path: path.display().to_string(),
        name: crew.map_or_else(|| path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(), |c| c.name.clone()),
        description: crew.map(|c| c.description.clone()).unwrap_or_default(),
        valid: loaded.is_valid(),
        parsed: crew.is_some(),
        strategy: crew.map(|c| c.routing.strategy),
        layout: crew.map(|c| c.layout),
        entry_point: crew.map(|c| c.entry_point.to_string()),
        max_handoffs: crew.map(|c| c.settings.max_handoffs),
        agents: crew.map(agent_views).unwrap_or_default(),
        signals: crew.map(|c| c.signals.iter().map(|(_, d)| d.clone()).collect()).unwrap_or_default(),
        graph,
        problems,
    }
}

fn agent_views(crew: &Crew) -> Vec<AgentView> {
    crew.agents
        .iter()
        .map(|a| AgentView {
            id: a.id.to_string(),
            name: a.name.clone(),
            role: a.role.clone(),
            description: a.description.clone(),
            objective: a.objective.clone(),
            tags: a.tags.clone(),
            system_prompt: a.system_prompt.clone(),
            model: a.model_label().map(str::to_owned),
            temperature: a.temperature,
            tools: a.tools.clone(),
            handoff_targets: a.handoff_targets.iter().map(|t| t.to_string()).collect(),
            is_terminal: a.is_terminal,
            wait_for_signal: a.wait_for_signal,
            automatic_fallback: crewgraph_engine::routing::signals::automatic_fallback(crew, &a.id).map(|t| t.to_string()),
            runtime: a.runtime,
        })
        .collect()
}
