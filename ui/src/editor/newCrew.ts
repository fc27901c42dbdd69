// A new, empty crew for "File → New": a name and no agents yet. The first agent
// added becomes the entry point (see `addAgent`). Its handoff limit is set, and
// roomy: the engine's default of 5 (4 transfers) stops a crew of three with one
// revise loop before its critic can approve a second draft.
import type { CrewSpec } from "../bindings/CrewSpec";

/** A new crew's handoff limit: 11 transfers. */
export const NEW_CREW_HANDOFFS = 12;

export function emptyCrew(name: string, description = ""): CrewSpec {
  const about = description.trim();
  return {
    version: "1.0",
    name: name.trim() || "New crew",
    ...(about ? { description: about } : {}),
    max_handoffs: NEW_CREW_HANDOFFS,
    agents: [],
  };
}
