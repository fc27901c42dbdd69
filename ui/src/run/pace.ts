// How fast a scripted run (Simulate with a script) is shown, remembered per crew:
// at once, "as a model would" (word by word, at a readable speed), or one turn at a
// time with a Next button. A crew never run so starts at a readable pace: a
// scripted run is there to be watched.
//
//   const pace = rememberedPace(crewPath);   // "readable" the first time
//   rememberPace(crewPath, "step");
import type { Pace } from "../bindings/Pace";

const KEY = "crewgraph-pace";
/** How many crews' paces are kept (the newest). */
const KEPT = 100;

export const DEFAULT_PACE: Pace = "readable";

/** Each pace in the run panel's words, in the order they are offered. */
export const PACE_WORDS: { pace: Pace; label: string; title: string }[] = [
  { pace: "readable", label: "As a model would", title: "Each reply appears word by word, at a speed you can read" },
  { pace: "step", label: "Step by step", title: "Each agent's turn waits for you to press Next" },
  { pace: "instant", label: "At once", title: "The whole run as fast as it goes" },
];

const isPace = (value: unknown): value is Pace => value === "instant" || value === "readable" || value === "step";

function stored(): Record<string, Pace> {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) ?? "{}") as unknown;
    if (typeof all !== "object" || all === null || Array.isArray(all)) return {};
    return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, Pace] => isPace(entry[1])));
  } catch {
    return {}; // no storage here (tests), or something else in it
  }
}

/** The pace last chosen for `crew` (the default for a crew never run so). */
export function rememberedPace(crew: string | null): Pace {
  return (crew && stored()[crew]) || DEFAULT_PACE;
}

/** Remembers the pace chosen for `crew`. */
export function rememberPace(crew: string | null, pace: Pace): void {
  if (!crew) return;
  try {
    const all = stored();
    delete all[crew];
    all[crew] = pace;
    const kept = Object.entries(all).slice(-KEPT);
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(kept)));
  } catch {
    // Not remembered: the crew starts at the default pace next time.
  }
}
