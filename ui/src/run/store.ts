// The window's one run store: the run being shown (a `RunView` folded by the
// reducer) and the crew it belongs to (a run is shown on its own crew only), the
// events it was folded from, how the latest watch of it ended, and
// the replay of a past run (its frames, the position, playing or not, the speed),
// whether the run takes typed replies (Simulate mode by hand) or comes from a
// script at a pace (step by step: each turn waits for Next), and whether the
// replay came from a recording file rather than the store.
// Each batch from the backend is folded in ONE state update (`apply`), so a model
// streaming hundreds of tokens a second redraws the window a few times a second.
// No backend calls here: components/run/runActions.ts calls the backend and feeds
// this store. Vanilla zustand, so tests need no React; components read it with
// `useRun(selector)`.
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { Pace } from "../bindings/Pace";
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import type { WatchEnd } from "../bindings/WatchEnd";
import { paintDelays } from "./paintDelays";
import { applyRunEvents, emptyRun, replayFrames, type RunView } from "./reducer";

export type ReplaySpeed = 1 | 4;

/** A past run shown event by event. */
export type ReplayState = {
  /** The view after each event (frame i: after events[0..=i]). */
  frames: RunView[];
  /** The event shown last; -1 before the first. */
  position: number;
  playing: boolean;
  speed: ReplaySpeed;
};

export type RunState = {
  /** The run shown; null when there is none. */
  view: RunView | null;
  /** The run as the graph draws it: `view` itself, except while the window follows
   * a live run, where an update reaches the graph one frame after the run dock
   * (`apply(batch, true)`, then `showGraph()`). WebKit lays a frame that changes
   * both out from the page's root and repaints everything between them, the canvas
   * with it; two frames repaint what changed (BENCHMARKS.md, "Two frames an
   * update"). */
  graph: RunView | null;
  /** The crew the run shown belongs to (its path, as the editor holds it); null
   * when no run is shown, or it is not known. */
  crew: string | null;
  /** Its events as received, each seq once, in seq order. */
  events: RunEvent[];
  /** How the latest watch ended; null while it goes on (or before any). */
  ended: WatchEnd | null;
  /** Set while a past run is replayed. */
  replay: ReplayState | null;
  /** The transcript turn to bring into view (a tracker line was clicked). */
  highlight: number | null;
  /** The run shown goes on with typed replies: the person types each agent's reply. */
  typed: boolean;
  /** The run shown comes from a script at this pace (null: not a scripted run, or
   * not known); at "step" each turn waits for the person's Next. */
  pace: Pace | null;
  /** The replay shown came from a recording file (it may not be in the store). */
  imported: boolean;

  /** Shows run `runId` of crew `crew` from now on — a fresh view, unless the view
   * already is that run's (a resume, a catch-up, or events that arrived before the
   * run's id did). `null`: a run whose id is not known yet (it takes its first
   * event's). Without `crew`, the crew stays the one the view has. */
  begin(runId: string | null, crew?: string | null): void;
  /** Folds a whole batch in one update; its `end` (and `lost_from`) too. With
   * `graphLater`, the graph keeps the view it has until `showGraph()`. */
  apply(batch: RunBatch, graphLater?: boolean): void;
  /** The graph draws the view the run dock shows. */
  showGraph(): void;
  /** The watch ended without a batch saying so (the backend call failed). */
  end(why: WatchEnd): void;
  /** Shows no run. */
  reset(): void;
  /** Replays a stored run (or, `imported`, a recording file's) on crew `crew`:
   * shown whole, ready to step through. */
  load(events: RunEvent[], imported?: boolean, crew?: string | null): void;
  /** Shows the replay after event `index` (-1: before the first). */
  stepTo(index: number): void;
  play(): void;
  pause(): void;
  setSpeed(speed: ReplaySpeed): void;
  highlightTurn(turn: number | null): void;
  /** Says whether the run shown takes typed replies. */
  setTyped(typed: boolean): void;
  /** Says at which pace the run shown comes from its script (null: none). */
  setPace(pace: Pace | null): void;
};

export type RunStore = ReturnType<typeof createRunStore>;

export function createRunStore() {
  /** Batches folded into the view but not yet shown on the graph: their events,
   * and when each arrived (for the speed figures, paintDelays.ts). */
  let unshown: Array<{ events: RunEvent[]; arrived: number }> = [];
  return createStore<RunState>()((set, get) => ({
    view: null,
    graph: null,
    crew: null,
    events: [],
    ended: null,
    replay: null,
    highlight: null,
    typed: false,
    pace: null,
    imported: false,

    begin(runId, crew) {
      const { view, replay } = get();
      const owner = crew === undefined ? get().crew : crew;
      if (runId !== null && view && !replay && (view.runId === runId || view.runId === "")) {
        const same = view.runId === runId ? view : { ...view, runId };
        set({ view: same, graph: same, ended: null, crew: owner });
        return;
      }
      unshown = [];
      const fresh = emptyRun(runId ?? "");
      set({ view: fresh, graph: fresh, crew: owner, events: [], ended: null, replay: null, highlight: null, typed: false, pace: null, imported: false });
    },

    apply(batch, graphLater = false) {
      const arrived = Date.now();
      const state = get();
      if (state.replay) return; // a live watch's late batch: the replay is what is shown
      const before = state.view ?? emptyRun();
      let view = applyRunEvents(before, batch.events);
      let events = view === before ? state.events : remember(state.events, batch.events, view.runId);
      if (batch.lost_from !== null && batch.lost_from !== undefined) {
        // Never stored: forget them (a resume numbers its events from there again).
        const lost = Number(batch.lost_from);
        events = events.filter((e) => e.seq < lost);
        view = applyRunEvents(emptyRun(view.runId), events);
      }
      const ended = batch.end ?? state.ended;
      if (view === state.view && events === state.events && ended === state.ended) return;
      if (graphLater) {
        set({ view, events, ended });
        unshown.push({ events: batch.events, arrived });
        return;
      }
      set({ view, graph: view, events, ended });
      paintDelays.folded(batch.events, arrived);
    },

    showGraph() {
      const { view, graph } = get();
      if (graph !== view) set({ graph: view });
      for (const { events, arrived } of unshown) paintDelays.folded(events, arrived);
      unshown = [];
    },

    end(why) {
      set({ ended: why });
    },

    reset() {
      unshown = [];
      set({ view: null, graph: null, crew: null, events: [], ended: null, replay: null, highlight: null, typed: false, pace: null, imported: false });
    },

    load(events, imported = false, crew) {
      const sorted = [...events].sort((a, b) => a.seq - b.seq);
      const frames = replayFrames(sorted);
      const last = frames.at(-1) ?? emptyRun(sorted[0]?.run_id ?? "");
      unshown = [];
      set({
        view: last,
        graph: last,
        crew: crew === undefined ? get().crew : crew,
        events: sorted,
        ended: null,
        replay: { frames, position: frames.length - 1, playing: false, speed: 1 },
        highlight: null,
        typed: false,
        pace: null,
        imported,
      });
    },

    stepTo(index) {
      const { replay, view } = get();
      if (!replay) return;
      const last = replay.frames.length - 1;
      const position = Math.max(-1, Math.min(last, Math.round(index)));
      const shown = position < 0 ? emptyRun(view?.runId ?? "") : replay.frames[position];
      set({
        view: shown,
        graph: shown,
        replay: { ...replay, position, playing: replay.playing && position < last },
      });
    },

    play() {
      const { replay } = get();
      if (!replay || replay.frames.length === 0) return;
      if (replay.position >= replay.frames.length - 1) {
        // At the end: play from the start.
        const start = emptyRun(get().view?.runId ?? "");
        set({ view: start, graph: start, replay: { ...replay, position: -1, playing: true } });
        return;
      }
      set({ replay: { ...replay, playing: true } });
    },

    pause() {
      const { replay } = get();
      if (replay?.playing) set({ replay: { ...replay, playing: false } });
    },

    setSpeed(speed) {
      const { replay } = get();
      if (replay && replay.speed !== speed) set({ replay: { ...replay, speed } });
    },

    highlightTurn(turn) {
      set({ highlight: turn });
    },

    setTyped(typed) {
      if (get().typed !== typed) set({ typed });
    },

    setPace(pace) {
      if (get().pace !== pace) set({ pace });
    },
  }));
}

/** `log` with the run's new events added, each seq once, in seq order. */
function remember(log: RunEvent[], incoming: RunEvent[], runId: string): RunEvent[] {
  const mine = incoming.filter((e) => e.run_id === runId);
  // The usual case: every event is new and in order.
  let last = log.at(-1)?.seq ?? -1;
  let inOrder = true;
  for (const event of mine) {
    if (event.seq <= last) {
      inOrder = false;
      break;
    }
    last = event.seq;
  }
  if (inOrder) return mine.length ? [...log, ...mine] : log;
  const bySeq = new Map(log.map((e) => [e.seq, e]));
  for (const event of mine) if (!bySeq.has(event.seq)) bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** The store the window uses. */
export const runStore = createRunStore();

/** Reads the window's run store from a component. */
export function useRun<T>(selector: (state: RunState) => T): T {
  return useStore(runStore, selector);
}
