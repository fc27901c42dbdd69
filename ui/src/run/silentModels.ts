// The models a run is about to ask that did not answer their last check
// (`ModelView.check.answers` false: Settings' Check, the guided start): the run
// panel warns about them before the run starts, with a way on. Pure.
//
//   silentModels(spec, models, "")        // each agent's own model (and the router's)
//   silentModels(spec, models, "fast")    // one model for every agent
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ModelView } from "../bindings/ModelView";
import { modelNamed } from "../models/warnings";

/** Every model the run would ask — `chosen` for all agents, else each agent's own
 * and a router model's — that did not answer when last checked, each once. */
export function silentModels(spec: CrewSpec | null, models: readonly ModelView[], chosen: string): ModelView[] {
  if (!spec) return [];
  const names = chosen
    ? [chosen]
    : [
        ...spec.agents.map((agent) => agent.model ?? agent.primary?.model),
        ...(spec.routing?.strategy === "llm" ? [spec.routing.router?.model] : []),
      ];
  const silent = new Map<string, ModelView>();
  for (const name of names) {
    const model = modelNamed(name, models);
    if (model && model.check?.answers === false) silent.set(model.name, model);
  }
  return [...silent.values()];
}
