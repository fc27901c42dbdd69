// A new, empty crew for "File → New": a name and no agents yet. The first agent
// added becomes the entry point (see `addAgent`).
import type { CrewSpec } from "../bindings/CrewSpec";

export function emptyCrew(name: string, description = ""): CrewSpec {
  const about = description.trim();
  return { version: "1.0", name: name.trim() || "New crew", ...(about ? { description: about } : {}), agents: [] };
}
