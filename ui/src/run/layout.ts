// How the person left the window's panels — the run dock and the problems list:
// open or folded, and how tall — remembered across crews and restarts (local
// storage), and the rule that keeps the canvas the main thing: panels below the
// canvas may take no more than what leaves the canvas half of the window's height
// (a third, at least 150 px, in a window too short for that: at 200 % zoom).
//
//   const layout = readLayout();
//   rememberLayout({ dockHeight: 320 });
//   panelRoom(canvasHeight + dockHeight, window.innerHeight)   // the most the dock may take

export type PanelLayout = {
  /** The run dock is unfolded. */
  dockOpen: boolean;
  /** The run dock's height when unfolded, in CSS pixels (null: the default). */
  dockHeight: number | null;
  /** The problems list is unfolded. */
  problemsOpen: boolean;
  /** The problems list's height when unfolded (null: the default). */
  problemsHeight: number | null;
};

const KEY = "crewgraph-layout";

export const DEFAULT_LAYOUT: PanelLayout = { dockOpen: false, dockHeight: null, problemsOpen: true, problemsHeight: null };

/** The run dock's height when the person never set one. */
export const DEFAULT_DOCK_HEIGHT = 340;
/** The smallest an unfolded run dock gets (its header and a few lines). */
export const MIN_DOCK_HEIGHT = 150;
/** The problems list's height when the person never set one. */
export const DEFAULT_PROBLEMS_HEIGHT = 168;
export const MIN_PROBLEMS_HEIGHT = 60;

/** The layout as remembered (the defaults for what never was). */
export function readLayout(): PanelLayout {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? "{}") as Partial<PanelLayout>;
    return {
      dockOpen: typeof stored.dockOpen === "boolean" ? stored.dockOpen : DEFAULT_LAYOUT.dockOpen,
      dockHeight: typeof stored.dockHeight === "number" && stored.dockHeight > 0 ? stored.dockHeight : null,
      problemsOpen: typeof stored.problemsOpen === "boolean" ? stored.problemsOpen : DEFAULT_LAYOUT.problemsOpen,
      problemsHeight: typeof stored.problemsHeight === "number" && stored.problemsHeight > 0 ? stored.problemsHeight : null,
    };
  } catch {
    return { ...DEFAULT_LAYOUT }; // no storage here (tests), or something else in it
  }
}

/** Remembers part of the layout. */
export function rememberLayout(change: Partial<PanelLayout>): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...readLayout(), ...change }));
  } catch {
    // Not remembered: the next start uses the defaults.
  }
}

/** The least height the canvas keeps in a window `windowHeight` tall: half of it,
 * or in a short window (200 % zoom) a third, and never under 150 px. */
export function canvasFloor(windowHeight: number): number {
  const half = windowHeight / 2;
  return windowHeight >= 600 ? half : Math.max(150, windowHeight / 3);
}

/** The most a panel below the canvas may take, when it and the canvas share
 * `shared` pixels: what leaves the canvas its floor (never under `least`). */
export function panelRoom(shared: number, windowHeight: number, least = MIN_DOCK_HEIGHT): number {
  return Math.max(least, Math.floor(shared - canvasFloor(windowHeight)));
}

/** A height the person asked for (a drag), kept within [least, room]. */
export function clampHeight(wanted: number, least: number, room: number): number {
  return Math.round(Math.min(Math.max(wanted, least), Math.max(least, room)));
}
