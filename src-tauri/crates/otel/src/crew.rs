//! What the spans say of a crew that its events do not: its name, and each agent's
//! name, model and provider (the events name agents by id only). The host that
//! starts the run knows them (which model an agent's turns use, or that a script
//! answers) and hands them over as [`CrewFacts`]; the attributes every turn of an
//! agent shares are made once here, not once per turn.

use std::collections::HashMap;
use std::sync::Arc;

use opentelemetry::{KeyValue, StringValue};

use crate::names;

/// One agent as its turn spans describe it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentFacts {
    /// The agent's id in the crew.
    pub id: String,
    /// Its name as shown (`gen_ai.agent.name`).
    pub name: String,
    /// The model its turns ask (`gen_ai.request.model`).
    pub model: String,
    /// Who serves that model (`gen_ai.provider.name`: `openai`, `anthropic`,
    /// `crewgraph.local`, `crewgraph.scripted` …).
    pub provider: String,
}

/// A crew as its runs' spans describe it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrewFacts {
    /// The crew's name (the run span's name).
    pub name: String,
    /// Its agents.
    pub agents: Vec<AgentFacts>,
}

/// [`CrewFacts`] made ready for many spans: each agent's shared attributes, made once.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) crew: StringValue,
    pub(crate) workflow_span: String,
    agents: HashMap<String, Arc<PreparedAgent>>,
}

/// One agent's turn-span name and shared attributes.
#[derive(Debug)]
pub(crate) struct PreparedAgent {
    pub(crate) span_name: String,
    pub(crate) attributes: Vec<KeyValue>,
}

impl PreparedAgent {
    fn of(facts: &AgentFacts) -> Self {
        let provider = StringValue::from(facts.provider.clone());
        PreparedAgent {
            span_name: format!("chat {}", facts.model),
            attributes: vec![
                KeyValue::new(names::OPERATION, "chat"),
                KeyValue::new(names::PROVIDER, provider.clone()),
                KeyValue::new(names::SYSTEM, provider),
                KeyValue::new(names::REQUEST_MODEL, facts.model.clone()),
                KeyValue::new(names::AGENT_NAME, facts.name.clone()),
                KeyValue::new(names::AGENT_ID, facts.id.clone()),
            ],
        }
    }
}

impl Prepared {
    pub(crate) fn new(facts: &CrewFacts) -> Self {
        Prepared {
            crew: StringValue::from(facts.name.clone()),
            workflow_span: format!("invoke_workflow {}", facts.name),
            agents: facts.agents.iter().map(|agent| (agent.id.clone(), Arc::new(PreparedAgent::of(agent)))).collect(),
        }
    }

    /// Agent `id`'s turn attributes; one the crew did not list (the router model,
    /// an agent added since) is described by its id alone.
    pub(crate) fn agent(&self, id: &str) -> Arc<PreparedAgent> {
        self.agents.get(id).cloned().unwrap_or_else(|| {
            Arc::new(PreparedAgent::of(&AgentFacts {
                id: id.to_owned(),
                name: id.to_owned(),
                model: "unknown".to_owned(),
                provider: "unknown".to_owned(),
            }))
        })
    }
}
