//! The attribute, span and event names the traces use: the OpenTelemetry GenAI
//! semantic conventions' (`gen_ai.*`) where they name the thing, Crewgraph's own
//! (`crewgraph.*`) for what they do not (signals, handoffs, routing).

pub const OPERATION: &str = "gen_ai.operation.name";
pub const PROVIDER: &str = "gen_ai.provider.name";
/// The provider's older name (semantic conventions before 1.37), for readers that know only it.
pub const SYSTEM: &str = "gen_ai.system";
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
pub const AGENT_NAME: &str = "gen_ai.agent.name";
pub const AGENT_ID: &str = "gen_ai.agent.id";
pub const CONVERSATION: &str = "gen_ai.conversation.id";
pub const INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
pub const OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
pub const TOOL_NAME: &str = "gen_ai.tool.name";
pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
pub const TOOL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
pub const TOOL_RESULT: &str = "gen_ai.tool.call.result";
pub const WORKFLOW_NAME: &str = "gen_ai.workflow.name";
pub const ERROR_TYPE: &str = "error.type";

pub const RUN_ID: &str = "crewgraph.run.id";
pub const CREW: &str = "crewgraph.crew.name";
pub const LEG: &str = "crewgraph.run.leg";
pub const STATUS: &str = "crewgraph.run.status";
pub const HANDOFFS: &str = "crewgraph.run.handoffs";
pub const STEPS: &str = "crewgraph.run.steps";
pub const FINAL_AGENT: &str = "crewgraph.run.final_agent";
pub const STEP: &str = "crewgraph.step";
pub const COST: &str = "crewgraph.usage.cost_usd";
pub const SIGNAL: &str = "crewgraph.signal";
pub const LEVEL: &str = "crewgraph.signal.level";
pub const BEHAVIOR: &str = "crewgraph.signal.behavior";
pub const FROM: &str = "crewgraph.handoff.from";
pub const TO: &str = "crewgraph.handoff.to";
pub const REASON: &str = "crewgraph.handoff.reason";
pub const COUNT: &str = "crewgraph.handoff.count";
pub const STRATEGY: &str = "crewgraph.routing.strategy";
pub const CHOSEN: &str = "crewgraph.routing.chosen";
pub const CANDIDATES: &str = "crewgraph.routing.candidates";
pub const REASONING: &str = "crewgraph.routing.reasoning";
pub const MESSAGE: &str = "crewgraph.message";
pub const AGENT: &str = "crewgraph.agent";
pub const AGENTS: &str = "crewgraph.agents";
pub const GROUP: &str = "crewgraph.group";
