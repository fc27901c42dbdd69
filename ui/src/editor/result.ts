// What an edit of a crew returns: the new spec, or a refusal in plain words that
// the window shows as it is. Expected refusals are values, never thrown.
import type { CrewSpec } from "../bindings/CrewSpec";

/** The edit was made. `renamed` maps old node ids to new ones (renames), so node
 * positions and the selection can follow. */
export type EditOk = { ok: true; spec: CrewSpec; renamed?: Record<string, string> };

/** The edit was refused; `error` is a sentence for the person, naming what is wrong. */
export type Refusal = { ok: false; error: string };

export type EditResult = EditOk | Refusal;

export function ok(spec: CrewSpec, renamed?: Record<string, string>): EditOk {
  return renamed ? { ok: true, spec, renamed } : { ok: true, spec };
}

export function refuse(error: string): Refusal {
  return { ok: false, error };
}
