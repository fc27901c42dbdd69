// A run asked for before its crew is open: the start view's "Try it (no model)"
// and "Run" open an example and start it at once. The request waits here; the run
// panel of that crew takes it when it appears (`takeLaunch`), shows it (the input,
// Simulate or the model) and starts it as soon as the crew can run. Only the
// newest request waits; opening another crew drops it (`dropLaunch`).
//
//   requestLaunch({ crew: path, simulate: true, input: LAUNCH_INPUT });
//   await files.openPath(path);

export type Launch = {
  /** The crew's path, as the editor holds it once open. */
  crew: string;
  /** Simulate with the crew's own script, rather than the chosen model. */
  simulate: boolean;
  /** What the crew is asked to do. */
  input: string;
};

/** What an example is asked to do when it is started from the start view. */
export const LAUNCH_INPUT = "Please begin.";

let waiting: Launch | null = null;

export function requestLaunch(launch: Launch): void {
  waiting = launch;
}

/** Whether a run waits to start on `crew`. */
export function launchWaiting(crew: string | null): boolean {
  return crew !== null && waiting?.crew === crew;
}

/** The run waiting to start on `crew`, taken (null: none). */
export function takeLaunch(crew: string | null): Launch | null {
  if (!launchWaiting(crew)) return null;
  const taken = waiting;
  waiting = null;
  return taken;
}

/** Forgets a waiting run (its crew did not open). */
export function dropLaunch(): void {
  waiting = null;
}
