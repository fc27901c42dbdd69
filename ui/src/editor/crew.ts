// Pure edits of the crew's own settings (name, description, first agent, most
// handoffs, routing strategy), in the style of `editor/`: a new spec or a refusal
// in plain words, never a mutation.
import type { CrewSpec } from "../bindings/CrewSpec";
import type { Strategy } from "../bindings/Strategy";
import { CREW_KEYS, setKey, text } from "./keys";
import { type EditResult, ok, refuse } from "./result";
import { hasAgent, routingOf, setRoutingKey } from "./routing";

export const STRATEGIES: readonly Strategy[] = ["signals", "scoring", "llm", "gatekeeper"];

/** What the crew panel may change. `max_handoffs: null` removes the limit from the
 * crew (the settings block's, or the default 5, applies). */
export type CrewPatch = {
  name?: string;
  description?: string;
  entry_point?: string;
  max_handoffs?: number | null;
  strategy?: Strategy;
};

export function updateCrew(spec: CrewSpec, patch: CrewPatch): EditResult {
  let next = spec;
  if (patch.name !== undefined) {
    const name = patch.name.trim();
    if (name === "") return refuse("The crew needs a name");
    next = setKey(next, "name", name, CREW_KEYS);
  }
  if (patch.description !== undefined) next = setKey(next, "description", text(patch.description.trim()), CREW_KEYS);
  if (patch.entry_point !== undefined) {
    if (!hasAgent(spec, patch.entry_point)) return refuse(`There is no agent called '${patch.entry_point}'`);
    next = setKey(next, "entry_point", patch.entry_point, CREW_KEYS);
  }
  if (patch.max_handoffs !== undefined) {
    const most = patch.max_handoffs;
    if (most !== null && (!Number.isInteger(most) || most < 1)) {
      return refuse("The handoff limit is a whole number, 1 or more");
    }
    next = setKey(next, "max_handoffs", most ?? undefined, CREW_KEYS);
  }
  if (patch.strategy !== undefined) {
    const { strategy } = patch;
    if (!STRATEGIES.includes(strategy)) return refuse(`There is no routing strategy called '${strategy}'`);
    const written = routingOf(next).strategy;
    // "signals" is what a crew without a strategy does: nothing to write.
    if (!(strategy === "signals" && written === undefined)) next = setRoutingKey(next, "strategy", strategy);
  }
  return ok(next);
}
