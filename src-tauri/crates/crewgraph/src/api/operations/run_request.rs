//! The one run request: [`StartRun`] and [`ResumeRun`], the same for the window,
//! the server and the CLI, and where their agents' replies come from ([`Replies`]).
//! They are checked here, once: an empty input, typed replies together with a
//! script, a script given twice — each refused with `invalid_input` in words.

use serde::Deserialize;
use serde_json::Value;
use ts_rs::TS;
use utoipa::ToSchema;

use crate::api::{Api, ApiError, ApiErrorCode, ForkAt, RunOptions, ScriptSource};
use crewgraph_engine::run::{Answer, Breaks, ToolDecision};
use crewgraph_engine::AgentId;
use crewgraph_llm::{Pace, Stepper, TypedReplies};

/// Where a run's agents' replies come from: their models (or one model for all), a
/// script (Simulate mode), or the person typing them.
#[derive(Clone, Debug, Default, Deserialize, TS, ToSchema)]
#[ts(export)]
pub struct Replies {
    /// Simulate mode: the agents' replies from this script instead of a model — its
    /// YAML text, or the same as a JSON object (`{"replies": {"teacher": ["… [QUESTION]"]}}`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    #[ts(optional, type = "string | Record<string, unknown>")]
    pub script: Option<Value>,
    /// Simulate mode with a script file instead of `script` (a path in the window;
    /// over HTTP a script of the crews folder, as `GET /crews/{crew}/scripts` lists
    /// them). On resume, a script that starts with the replies the run used is the
    /// whole run's: those are skipped.
    #[serde(default)]
    #[ts(optional)]
    #[schema(example = "scripts/exam.yaml")]
    pub script_file: Option<String>,
    /// Simulate mode by hand: each agent's reply is typed in its turn (`type_reply`),
    /// instead of a script or a model.
    #[serde(default)]
    #[ts(optional, as = "Option<bool>")]
    pub typed: bool,
    /// The model every agent uses instead of its own (a named model, provider/model, or `local`).
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// With a script: how fast its replies come — `instant` (default), `readable`
    /// (word by word, as a model would write), or `step` (each turn waits for
    /// `step_run`).
    #[serde(default)]
    #[ts(optional)]
    pub pace: Option<Pace>,
}

impl Replies {
    /// The run options they stand for, or why they cannot be.
    pub fn options(&self, api: &Api) -> Result<RunOptions, ApiError> {
        let script_text = self.script.as_ref().filter(|s| !s.is_null());
        let model = self.model.clone();
        let pace = self.pace.unwrap_or_default();
        let scripted = script_text.is_some() || self.script_file.is_some();
        if pace != Pace::Instant && !scripted {
            return Err(invalid("a pace is for a scripted run (Simulate with a script): give a script, or leave the pace out"));
        }
        if self.typed {
            if script_text.is_some() || self.script_file.is_some() {
                return Err(invalid("typed replies come instead of a script: give 'typed' or a script, not both"));
            }
            return Ok(RunOptions { typed: Some(TypedReplies::new()), model, ..RunOptions::default() });
        }
        let script = match (script_text, &self.script_file) {
            (Some(_), Some(_)) => return Err(invalid("give either 'script' or 'script_file', not both")),
            (None, Some(name)) => Some(ScriptSource::File(api.crew_path(name)?)),
            (Some(Value::String(text)), None) => Some(ScriptSource::Text(text.clone())),
            (Some(value @ (Value::Object(_) | Value::Array(_))), None) => Some(ScriptSource::Text(value.to_string())),
            (Some(_), None) => return Err(invalid("'script' must be the script's YAML text or a JSON object with 'replies'")),
            (None, None) => None,
        };
        let stepper = (pace == Pace::Step).then(Stepper::new);
        Ok(RunOptions { script, model, pace, stepper, ..RunOptions::default() })
    }
}

/// A run to start.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct StartRun {
    /// The crew: its path in the window, its name in the crews folder over HTTP.
    #[schema(example = "exam.yaml")]
    pub crew: String,
    /// What the crew is asked to do.
    #[schema(example = "Start the exam")]
    pub input: String,
    #[serde(flatten)]
    #[ts(flatten)]
    pub replies: Replies,
    /// Under the scoring strategy: the agent the person asks for.
    #[serde(default)]
    #[ts(optional)]
    pub agent: Option<String>,
    /// Pause before each turn of these agents (ids): the run waits, showing what the
    /// agent is about to be given, until it is resumed.
    #[serde(default)]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub breakpoints: Vec<String>,
}

impl StartRun {
    /// The run options it stands for, or why it cannot run.
    pub fn options(&self, api: &Api) -> Result<RunOptions, ApiError> {
        if self.input.trim().is_empty() {
            return Err(invalid("the input is empty: write what the crew is asked to do"));
        }
        let breaks = Breaks { before: Some(agent_ids(&self.breakpoints)), step: false };
        Ok(RunOptions { requested_agent: self.agent.clone(), breaks, ..self.replies.options(api)? })
    }
}

/// Agent ids as a request gives them, trimmed, blanks left out.
fn agent_ids(ids: &[String]) -> Vec<AgentId> {
    ids.iter().map(|id| id.trim()).filter(|id| !id.is_empty()).map(AgentId::from).collect()
}

/// How to go on with a paused run (or an interrupted one).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ResumeRun {
    /// The run's id.
    #[schema(example = "run-5f0c2d1e9a7b3c41")]
    pub id: String,
    /// The person's answer (needed for a run waiting for one; optional for a run
    /// paused before an agent's turn, where it is added for that agent to see).
    #[serde(default)]
    #[ts(optional)]
    pub input: Option<String>,
    /// The agents to pause before from now on (ids; an empty list: none); left
    /// out, the run's stay.
    #[serde(default)]
    #[ts(optional)]
    pub breakpoints: Option<Vec<String>>,
    /// Go on for one turn, then pause before the next, whoever has it.
    #[serde(default)]
    #[ts(optional, as = "Option<bool>")]
    pub step: bool,
    #[serde(flatten)]
    #[ts(flatten)]
    pub replies: Replies,
}

impl ResumeRun {
    /// The run options it stands for, or why it cannot go on so.
    pub fn options(&self, api: &Api) -> Result<RunOptions, ApiError> {
        let breaks = Breaks { before: self.breakpoints.as_deref().map(agent_ids), step: self.step };
        Ok(RunOptions { breaks, ..self.replies.options(api)? })
    }
}

/// A new run forked from a stored one at one of its replies (`POST /runs/{id}/fork`).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ForkRun {
    /// The stored run's id.
    #[schema(example = "run-5f0c2d1e9a7b3c41")]
    pub id: String,
    /// The seq of the reply to replace (an `agent_response` event's).
    #[schema(example = 7)]
    pub at: u64,
    /// What the agent says there instead.
    #[schema(example = "3/4 [ANSWER]")]
    pub reply: String,
    /// Fork on the revision of the crew the run ran (when its file changed since).
    #[serde(default)]
    #[ts(optional, as = "Option<bool>")]
    pub on_revision: bool,
    /// How the agents reply after the fork point (a script, a model, typed).
    #[serde(flatten)]
    #[ts(flatten)]
    pub replies: Replies,
}

impl ForkRun {
    /// Where to fork and the run options, or why it cannot be so.
    pub fn fork(&self, api: &Api) -> Result<(ForkAt, RunOptions), ApiError> {
        if self.reply.trim().is_empty() {
            return Err(invalid("the reply is empty: write what the agent says instead"));
        }
        let at = ForkAt { seq: self.at, reply: self.reply.clone(), on_revision: self.on_revision };
        Ok((at, self.replies.options(api)?))
    }
}

/// A person's answer to a tool call a run waits on (`POST /runs/{id}/approvals/{call_id}`).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ApproveToolCall {
    /// The run's id.
    #[schema(example = "run-5f0c2d1e9a7b3c41")]
    pub id: String,
    /// The call, as its `tool_approval_requested` event names it.
    #[schema(example = "call-4-0")]
    pub call_id: String,
    /// `allow_once`, `allow_run` (this tool for the rest of the run) or `deny`.
    #[schema(schema_with = decision_schema)]
    pub decision: ToolDecision,
    /// Why (a denial's reason is told to the agent).
    #[serde(default)]
    #[ts(optional)]
    pub reason: Option<String>,
    /// How the run's agents reply as it goes on (as for a resume: its script again, in Simulate mode).
    #[serde(flatten)]
    #[ts(flatten)]
    pub replies: Replies,
}

impl ApproveToolCall {
    /// The answer and the run options it stands for.
    pub fn answer(&self, api: &Api) -> Result<(Answer, RunOptions), ApiError> {
        let reason = self.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(str::to_owned);
        let answer = Answer { call_id: self.call_id.trim().to_owned(), decision: self.decision, reason };
        Ok((answer, self.replies.options(api)?))
    }
}

/// The schema of a decision: one of its three names.
fn decision_schema() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(["allow_once", "allow_run", "deny"]))
        .build()
}

fn invalid(message: &str) -> ApiError {
    ApiError::new(ApiErrorCode::InvalidInput, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(input: &str, replies: Replies) -> StartRun {
        StartRun { crew: "exam.yaml".into(), input: input.into(), replies, agent: None, breakpoints: Vec::new() }
    }

    #[test]
    fn one_check_refuses_what_no_transport_can_run() {
        let api = Api::new(".");
        let script = Some(Value::String("replies: {}".into()));
        let refusals = [
            (start("  ", Replies::default()), "the input is empty"),
            (start("Go", Replies { typed: true, script: script.clone(), ..Replies::default() }), "typed replies come instead of a script"),
            (start("Go", Replies { typed: true, script_file: Some("s.yaml".into()), ..Replies::default() }), "not both"),
            (
                start("Go", Replies { script: script.clone(), script_file: Some("s.yaml".into()), ..Replies::default() }),
                "either 'script' or 'script_file'",
            ),
            (start("Go", Replies { script: Some(Value::from(3)), ..Replies::default() }), "the script's YAML text"),
            (start("Go", Replies { pace: Some(Pace::Step), ..Replies::default() }), "a pace is for a scripted run"),
            (start("Go", Replies { typed: true, pace: Some(Pace::Readable), ..Replies::default() }), "a pace is for a scripted run"),
        ];
        for (request, words) in refusals {
            let error = request.options(&api).expect_err(words);
            assert_eq!(error.code, ApiErrorCode::InvalidInput);
            assert!(error.message.contains(words), "{words}: {}", error.message);
        }
    }

    #[test]
    fn a_script_a_model_or_typed_replies_become_the_run_options() {
        let api = Api::new(".");
        let object = serde_json::json!({"replies": {"teacher": ["Q [QUESTION]"]}});
        let options =
            start("Go", Replies { script: Some(object.clone()), model: Some("fast".into()), ..Replies::default() }).options(&api).unwrap();
        assert_eq!(options.script, Some(ScriptSource::Text(object.to_string())));
        assert_eq!(options.model.as_deref(), Some("fast"));
        let typed = start("Go", Replies { typed: true, script: Some(Value::Null), ..Replies::default() }).options(&api).unwrap();
        assert!(typed.typed.is_some() && typed.script.is_none());
        let file = ResumeRun {
            id: "run-1".into(),
            input: None,
            breakpoints: None,
            step: false,
            replies: Replies { script_file: Some("s.yaml".into()), ..Replies::default() },
        };
        assert_eq!(file.options(&api).unwrap().script, Some(ScriptSource::File("s.yaml".into())));
    }
}
