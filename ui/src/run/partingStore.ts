// What the canvas shows of a forked run (issue 18, item 3): the run it was forked
// from (its id, what it was asked, when) and its events, where the two part
// (run/parting.ts), and the arrows drawn there — the first run's faint and dashed
// (`parted`), the fork's highlighted (`taken`). Kept for the fork shown only; another
// run shown forgets it. No backend calls here (ForkLegend.tsx loads the first run's
// events); vanilla zustand, read with `useArrowPart(id)` by each arrow.
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { RunEvent } from "../bindings/RunEvent";
import type { RunSummary } from "../bindings/RunSummary";
import type { Parting } from "./parting";

export type ForkOrigin = {
  /** The fork shown. */
  runId: string;
  /** The run it was forked from, and the seq of the reply replaced there. */
  first: Pick<RunSummary, "id" | "input" | "created_at">;
  at: number;
  /** The first run's events (null until loaded). */
  events: RunEvent[] | null;
};

export type PartingState = {
  origin: ForkOrigin | null;
  parting: Parting | null;
  parted: string[];
  taken: string[];
  setOrigin(origin: ForkOrigin | null): void;
  setParting(parting: Parting | null, arrows: { parted: string[]; taken: string[] }): void;
};

export const partingStore = createStore<PartingState>()((set) => ({
  origin: null,
  parting: null,
  parted: [],
  taken: [],
  setOrigin(origin) {
    set({ origin, parting: null, parted: [], taken: [] });
  },
  setParting(parting, { parted, taken }) {
    set({ parting, parted, taken });
  },
}));

export function useParting<T>(selector: (state: PartingState) => T): T {
  return useStore(partingStore, selector);
}

/** How arrow `id` is drawn where a fork parts: "parted" (the first run's, faint and
 * dashed), "taken" (the fork's, highlighted), or null. */
export function useArrowPart(id: string | undefined): "parted" | "taken" | null {
  return useParting((s) => (id === undefined ? null : s.taken.includes(id) ? "taken" : s.parted.includes(id) ? "parted" : null));
}

/** The line's style where a fork parts (nothing else changes its colour). */
export function partStroke(part: "parted" | "taken" | null): { strokeDasharray?: string; strokeWidth?: number } {
  if (part === "parted") return { strokeDasharray: "5 5" };
  if (part === "taken") return { strokeWidth: 3.5 };
  return {};
}
