// The window's one route-coverage store: the latest test of a crew (its report, or
// why it could not be made), whether one is going on, and whether the canvas shows
// it (while the Test tab is open). A report belongs to the crew it tested: another
// crew opened shows none. No backend calls here (components/run/testActions.ts
// makes them); vanilla zustand, read with `useCoverage(selector)`.
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { CrewTest } from "../bindings/CrewTest";
import { type Heat, heats } from "./coverage";

export type CoverageState = {
  /** The crew tested (its path); null before any test. */
  crew: string | null;
  report: CrewTest | null;
  /** Each arrow's heat by its id (empty without a report). */
  heats: Record<string, Heat>;
  /** Why the test could not be made, in words. */
  error: string | null;
  running: boolean;
  /** The canvas paints the arrows by the report (the Test tab is open). */
  shown: boolean;

  started(crew: string): void;
  finished(crew: string, report: CrewTest): void;
  failed(crew: string, error: string): void;
  show(shown: boolean): void;
  /** Forgets the report unless it is `crew`'s. */
  follow(crew: string | null): void;
};

export function createCoverageStore() {
  return createStore<CoverageState>()((set, get) => ({
    crew: null,
    report: null,
    heats: {},
    error: null,
    running: false,
    shown: false,

    started(crew) {
      set({ crew, running: true, error: null, report: get().crew === crew ? get().report : null, heats: get().crew === crew ? get().heats : {} });
    },
    finished(crew, report) {
      if (get().crew !== crew) return;
      set({ report, heats: heats(report), running: false, error: null });
    },
    failed(crew, error) {
      if (get().crew !== crew) return;
      set({ running: false, error, report: null, heats: {} });
    },
    show(shown) {
      set({ shown });
    },
    follow(crew) {
      if (get().crew !== crew) set({ crew, report: null, heats: {}, error: null, running: false });
    },
  }));
}

export const coverageStore = createCoverageStore();

export function useCoverage<T>(selector: (state: CoverageState) => T): T {
  return useStore(coverageStore, selector);
}

/** The heat the canvas paints arrow `id` with; null when no test is shown. */
export function useArrowHeat(id: string | undefined): Heat | null {
  return useCoverage((s) => (s.shown && s.report && id !== undefined ? (s.heats[id] ?? null) : null));
}
