// Warnings about the models a crew will run on, found before a run from what each
// model's last check said (Settings' Check, the guided start) — amber badges on the
// cards and lines in the problems list, beside the engine's own problems:
//
// - an agent with tools whose model cannot call tools;
// - a crew routed by a router model (`routing.strategy: llm`) whose router model
//   cannot give structured answers;
// - an agent whose instructions are larger than its model's context window
//   (estimated at a token per three characters, the engine's own estimate).
//
// A model the crew names that is not among Settings' models (`provider/model`), or
// one never checked, gives no warning: nothing is known of it. Pure.
//
//   modelWarnings(spec, models)   // ShownProblem[], each about one card or the router
import type { AgentSpec } from "../bindings/AgentSpec";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ModelView } from "../bindings/ModelView";
import type { ShownProblem } from "../graph/problems";
import { agentNodeId } from "../graph/refs";
import { windowWords } from "./words";

/** The node id of the router (the engine's view names it so). */
export const ROUTER_NODE = "router";

/** Characters a token holds at least, as the engine estimates sizes. */
const CHARS_PER_TOKEN = 3;

/** The model runs use when a crew names none (or `default`): the one marked the
 * default; with none marked, the only one configured; with none configured, `local`. */
export function defaultModel(models: readonly ModelView[]): ModelView | undefined {
  const marked = models.find((m) => m.default);
  if (marked) return marked;
  const own = models.filter((m) => m.name !== "local");
  return own.length === 1 ? own[0] : own.length === 0 ? models.find((m) => m.name === "local") : undefined;
}

/** The model an agent's (or the router's) `model` names, as the engine resolves it:
 * empty or `default` is the default model; a configured name is that model; with
 * no model configured every name runs on `local`. Undefined when it is none of
 * Settings' models (`provider/model`, a name not configured). */
export function modelNamed(name: string | undefined, models: readonly ModelView[]): ModelView | undefined {
  const wanted = name?.trim() ?? "";
  if (wanted === "" || wanted === "default") return defaultModel(models);
  const found = models.find((m) => m.name === wanted);
  if (found) return found;
  return models.every((m) => m.name === "local") ? models.find((m) => m.name === "local") : undefined;
}

/** An agent's model as its crew file names it (the Go engine's `primary:` block too). */
const agentModel = (agent: AgentSpec) => agent.model ?? agent.primary?.model;

/** The context window a model is known to have: as set in Settings, else as checked. */
export function knownWindow(model: ModelView): number | undefined {
  return model.context_window ?? model.check?.context_window;
}

/** About how many tokens `text` takes (on the large side, as the engine counts). */
export function estimateTokens(text: string): number {
  return Math.ceil([...text].length / CHARS_PER_TOKEN);
}

const warning = (plain: string, message: string, targets: string[]): ShownProblem => ({
  diagnostic: { severity: "warning", plain, message, location: null },
  targets,
});

/** A warning when `agent` names a model Settings do not have (a `provider/model`
 * name, or the Go engine's model with its provider, needs none): with nothing set
 * up it runs on the built-in model for now; with models set up, its runs stop. */
function unknownModelWarning(agent: AgentSpec, models: readonly ModelView[], card: string[]): ShownProblem | null {
  const name = agentModel(agent)?.trim() ?? "";
  const namesItsProvider = name.includes("/") || Boolean(agent.provider ?? agent.primary?.provider);
  if (name === "" || name === "default" || name === "local" || namesItsProvider || models.some((m) => m.name === name)) return null;
  if (models.every((m) => m.name === "local")) {
    return warning(
      `This agent asks for the model '${name}', which is not set up: it runs on the built-in demo model for now. Add '${name}' in Settings to use it.`,
      `agent '${agent.id}' names model '${name}', which is not configured (no model is: it runs on the local model)`,
      card,
    );
  }
  return warning(
    `This agent asks for the model '${name}', which is not set up: a run stops when it is this agent's turn. Add '${name}' in Settings, or pick another model for this agent.`,
    `agent '${agent.id}' names model '${name}', which is not configured`,
    card,
  );
}

/** Every warning about the models `spec` will run on, given Settings' `models`. */
export function modelWarnings(spec: CrewSpec, models: readonly ModelView[]): ShownProblem[] {
  const warnings: ShownProblem[] = [];
  for (const agent of spec.agents) {
    if (!agent.id) continue;
    const card = [agentNodeId(agent.id)];
    const notSetUp = unknownModelWarning(agent, models, card);
    if (notSetUp) warnings.push(notSetUp);
    const model = modelNamed(agentModel(agent), models);
    if (!model) continue;
    const tools = agent.tools ?? [];
    if (tools.length > 0 && model.check?.answers && model.check.tools === false) {
      warnings.push(
        warning(
          model.check.tool_json
            ? `This agent's tools may not work on ${model.name}: it did not call a tool when checked, so its tools are offered as JSON, which it may not follow. Pick another model if it does not use them.`
            : `This agent's tools won't work on ${model.name}: it cannot call tools. Pick another model.`,
          `agent '${agent.id}' uses tools (${tools.join(", ")}), but model '${model.name}' did not call a tool when checked`,
          card,
        ),
      );
    }
    const window = knownWindow(model);
    const prompt = estimateTokens(agent.system_prompt ?? "");
    if (window && prompt > window) {
      warnings.push(
        warning(
          `This agent's instructions (about ${prompt.toLocaleString("en-US")} tokens) are longer than ${model.name}'s ${windowWords(window)}. Shorten them, or pick a model with a larger window.`,
          `agent '${agent.id}': system_prompt ~${prompt} tokens > context window ${window} of model '${model.name}'`,
          card,
        ),
      );
    }
  }
  const routing = spec.routing;
  if (routing?.strategy === "llm") {
    const named = routing.router?.model;
    const router = modelNamed(named, models);
    if (router?.check?.answers && router.check.structured === false) {
      const fix = named?.trim()
        ? "Name another model for the router in the crew file (routing → router → model)."
        : "Make another model the default in Settings, or name one for the router in the crew file (routing → router → model).";
      warnings.push(
        warning(
          `The router model ${router.name} cannot give structured answers, so it cannot pick who works next. ${fix}`,
          `routing.strategy is llm, but router model '${router.name}' gave no structured answer when checked`,
          [ROUTER_NODE],
        ),
      );
    }
  }
  return warnings;
}
