// What the window does with runs through the backend — start, stop, resume, watch
// a run going on, fork a stored one at a reply, replay a past one or a recording,
// type an agent's reply, let a step-by-step run's next turn come, export a
// recording — each feeding the run
// store. A run is shown on its own crew only: when another crew opens, the run
// shown goes (`followCrew`), and a run of the new crew going on is shown instead.
// The pace of the scripted runs this window started is remembered for the tab's
// life too, so a step-by-step run shown again (its crew reopened, a reload) still
// offers Next. Only the newest watch feeds it: batches
// of a watch a newer one replaced are dropped; a watch that fell behind ("lagged")
// catches up from the last event it has. The runs this window started with typed
// replies are remembered for the tab's life, so a reload that catches up on one
// shows its reply boxes again.
import { isTauri } from "@tauri-apps/api/core";
import { backend } from "../../backend";
import type { ForkRequest } from "../../backend/Backend";
import type { ApproveToolCall } from "../../bindings/ApproveToolCall";
import type { Pace } from "../../bindings/Pace";
import type { Recording } from "../../bindings/Recording";
import type { Replies } from "../../bindings/Replies";
import type { ResumeRun } from "../../bindings/ResumeRun";
import type { RunBatch } from "../../bindings/RunBatch";
import type { StartRun } from "../../bindings/StartRun";
import type { RunSummary } from "../../bindings/RunSummary";
import { paintDelays } from "../../run/paintDelays";
import { runStore } from "../../run/store";

let generation = 0;

/** How long a batch may wait for a frame when none comes (a hidden window). */
const NO_FRAME_MS = 100;

/** Calls `then` as the next frame is prepared (or after NO_FRAME_MS without one). */
function nextFrame(then: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    then();
  };
  requestAnimationFrame(once);
  setTimeout(once, NO_FRAME_MS);
}

/** Calls `then` once the next frame has been drawn. */
const afterNextFrame = (then: () => void) => nextFrame(() => setTimeout(then, 0));

/** Whether an update is drawn in two frames, the run dock first and the graph a
 * frame later: in the window, whose WebKitGTK repaints everything between two
 * places a frame changes; a browser repaints only what changed, and the second
 * frame only made it later (BENCHMARKS.md, "Two frames an update"). */
const TWO_FRAMES = isTauri();

/** A new watch's batch handler; any older watch's batches are dropped from now on.
 * The window draws a run at its own pace (BENCHMARKS.md, "The window's
 * footprint"): a batch that finds it idle is folded at once and painted in the
 * next frame (waiting for that frame to fold it cost a frame of every update);
 * batches that arrive while it is drawing wait and are folded into one update; and
 * after each update the window rests half as long as the update took, so a fast
 * run never keeps it from answering the person (resting the whole time halved how
 * often a fast run was drawn, with no quicker typing). In the window an update is
 * drawn in two frames: the run dock first, then the graph (store.ts, `graph`;
 * `TWO_FRAMES`). Each batch's promise settles once the run dock shows it: the
 * window's transport then asks for the next batch (pulled.rs), which is on its way
 * while the graph is drawn and the window rests, so the events of a fast run
 * gather in the shell while the page paints.
 * A watch a newer one replaced settles `false`: the transport stops it, rather
 * than asking for batches nobody shows. */
function feed(): (batch: RunBatch) => Promise<boolean> {
  const mine = ++generation;
  let waiting: RunBatch[] = [];
  /** Who waits for the batches in `waiting` to be shown (told whether this watch
   * is still wanted). */
  let shown: Array<(wanted: boolean) => void> = [];
  let drawing = false;
  const flush = () => {
    const batches = waiting;
    const done = shown;
    waiting = [];
    shown = [];
    if (mine !== generation || batches.length === 0) {
      for (const settle of done) settle(mine === generation);
      return;
    }
    const began = performance.now();
    drawing = true;
    const batch = joined(batches);
    runStore.getState().apply(batch, TWO_FRAMES);
    const timer = paintDelays.update(began, batch.events.length);
    if (batch.end === "lagged") void catchUp();
    const rest = () => {
      timer.drawn();
      const took = performance.now() - began;
      setTimeout(() => {
        drawing = false;
        if (waiting.length > 0) flush();
      }, took / 2);
    };
    afterNextFrame(() => {
      timer.docked();
      // The run dock shows it: the next batch may set out now, on its way while the
      // graph is drawn and the window rests.
      for (const settle of done) settle(mine === generation);
      if (!TWO_FRAMES) return rest();
      runStore.getState().showGraph();
      afterNextFrame(rest);
    });
  };
  return (batch) =>
    new Promise((settle) => {
      if (mine !== generation) return settle(false); // replaced: the transport may stop this watch
      shown.push(settle);
      if (waiting.push(batch) > 1 || drawing) return;
      flush();
    });
}

/** Batches as one: their events in order, the last one's end. */
export function joined(batches: RunBatch[]): RunBatch {
  if (batches.length === 1) return batches[0];
  const last = batches[batches.length - 1];
  return { events: batches.flatMap((b) => b.events), end: last.end, lost_from: last.lost_from };
}

/** The last event the view has, for a watch to go on after it. */
function after(): number | null {
  const last = runStore.getState().view?.lastSeq ?? -1;
  return last >= 0 ? last : null;
}

const TYPED_KEY = "crewgraph-typed-runs";
/** How many typed runs are remembered (the newest). */
const TYPED_KEPT = 20;

function typedRuns(): string[] {
  try {
    const list = JSON.parse(sessionStorage.getItem(TYPED_KEY) ?? "[]") as unknown;
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return []; // no session storage here (tests), or something else in it
  }
}

function rememberTyped(runId: string): void {
  try {
    const list = [...typedRuns().filter((id) => id !== runId), runId].slice(-TYPED_KEPT);
    sessionStorage.setItem(TYPED_KEY, JSON.stringify(list));
  } catch {
    // Not remembered: a reload then shows the run without its reply boxes.
  }
}

const PACE_KEY = "crewgraph-run-paces";

/** The paces of the scripted runs this tab started (run id → pace), the newest kept. */
function runPaces(): Record<string, Pace> {
  try {
    const all = JSON.parse(sessionStorage.getItem(PACE_KEY) ?? "{}") as unknown;
    return typeof all === "object" && all !== null && !Array.isArray(all) ? (all as Record<string, Pace>) : {};
  } catch {
    return {};
  }
}

function rememberPace(runId: string, pace: Pace | null): void {
  try {
    const all = runPaces();
    delete all[runId];
    if (pace) all[runId] = pace;
    sessionStorage.setItem(PACE_KEY, JSON.stringify(Object.fromEntries(Object.entries(all).slice(-TYPED_KEPT))));
  } catch {
    // Not remembered: the run shown again offers no Next (Stop still works).
  }
}

/** The pace a request's script comes at (null: no script). */
const paceOf = (request: Replies) => (request.script !== undefined || request.script_file !== undefined ? (request.pace ?? "instant") : null);

/** Starts a run of the crew file; its events fill the run store. Answers its id. */
export async function startRun(request: StartRun): Promise<string> {
  runStore.getState().begin(null, request.crew);
  runStore.getState().setTyped(request.typed === true);
  runStore.getState().setPace(paceOf(request));
  const onBatch = feed();
  const mine = generation;
  try {
    const id = await backend.startRun(request, onBatch);
    if (request.typed) rememberTyped(id);
    rememberPace(id, paceOf(request));
    if (mine === generation) runStore.getState().begin(id);
    return id;
  } catch (error) {
    if (mine === generation) runStore.getState().reset();
    throw error;
  }
}

/** Forks a stored run at one of its replies (`at`) and shows the new run as a
 * started one is shown: watched from its first event, live. Answers its id. */
export async function forkRun(request: ForkRequest, crew: string | null): Promise<string> {
  const { run_id } = await backend.forkRun(request);
  if (request.typed) rememberTyped(run_id);
  rememberPace(run_id, paceOf(request));
  await watchRun(run_id, crew);
  return run_id;
}

/** Stops the run (it ends `cancelled`; its last events arrive on its watch). */
export function stopRun(runId: string): Promise<void> {
  return backend.cancelRun(runId);
}

/** Goes on with a paused (or interrupted) run, with the person's answer. */
export async function resumeRun(runId: string, request: Omit<ResumeRun, "id">): Promise<void> {
  const before = runStore.getState().ended;
  runStore.getState().begin(runId);
  runStore.getState().setTyped(request.typed === true);
  runStore.getState().setPace(paceOf(request));
  if (request.typed) rememberTyped(runId);
  rememberPace(runId, paceOf(request));
  const from = after();
  try {
    await backend.resumeRun(runId, request, from, feed());
  } catch (error) {
    if (before) runStore.getState().end(before);
    throw error;
  }
}

/** Answers the tool call a paused run waits on, and watches it go on. */
export async function approveToolCall(runId: string, request: Omit<ApproveToolCall, "id">): Promise<void> {
  const before = runStore.getState().ended;
  runStore.getState().begin(runId);
  runStore.getState().setPace(paceOf(request));
  rememberPace(runId, paceOf(request));
  const from = after();
  try {
    await backend.approveToolCall(runId, request, from, feed());
  } catch (error) {
    if (before) runStore.getState().end(before);
    throw error;
  }
}

/** Shows a run of crew `crew` going on (or stored) from its events so far, then live. */
export async function watchRun(runId: string, crew?: string | null): Promise<void> {
  runStore.getState().begin(runId, crew);
  if (typedRuns().includes(runId)) runStore.getState().setTyped(true);
  const pace = runPaces()[runId];
  if (pace) runStore.getState().setPace(pace);
  try {
    await backend.watchRun(runId, after(), feed());
  } catch (error) {
    runStore.getState().end("interrupted");
    throw error;
  }
}

/** Replays a past run of crew `crew` on the graph, event by event. */
export async function replayRun(runId: string, crew?: string | null): Promise<void> {
  const mine = ++generation;
  const events = await backend.runEvents(runId);
  // (Something else was shown meanwhile — another run, another crew: it stays.)
  if (mine !== generation) return;
  runStore.getState().load(events, false, crew);
}

/** When the window starts (or reloads) while a run goes on: the newest such run is
 * shown live, its crew opened first (with `openCrew`). Answers its id; null when no
 * run goes on, or one is shown already. */
export async function showLiveRun(openCrew: (crew: string) => Promise<void>): Promise<string | null> {
  const live = await backend.liveRuns();
  if (live.length === 0 || runStore.getState().view) return null;
  const runs = await backend.listRuns().catch(() => []);
  const id = runs.find((run) => live.includes(run.id))?.id ?? live[0];
  const crew = await backend.runCrew(id).catch(() => null);
  if (crew) await openCrew(crew);
  await watchRun(id, crew);
  return id;
}

/** Replays a recording file's run on the graph of crew `crew` (it need not be in
 * the store). */
export function replayRecording(recording: Recording, crew: string | null = null): void {
  ++generation;
  runStore.getState().load(recording.events, true, crew);
}

/** Shows no run: the watch of the run shown is let go (its late batches dropped). */
export function leaveRun(): void {
  ++generation;
  runStore.getState().reset();
}

/** The editor now shows crew `crew` (null: a crew never saved, or none): a run of
 * another crew goes from the screen — a past one, a replay, one going on (it goes
 * on, and shows again when its crew is opened) — and a run of this crew going on
 * in the background is shown, live. */
export async function followCrew(crew: string | null): Promise<void> {
  const shown = runStore.getState();
  if (shown.view && shown.crew === crew && crew !== null) return;
  if (shown.view) leaveRun();
  if (crew === null) return;
  const mine = generation;
  const live = await backend.liveRuns().catch(() => []);
  for (const id of live) {
    const of = await backend.runCrew(id).catch(() => null);
    // (Only while nothing else was chosen meanwhile: a run started, a past one opened.)
    if (mine !== generation || runStore.getState().view) return;
    if (of === crew) {
      await watchRun(id, crew);
      return;
    }
  }
}

/** A run at the step pace: lets its next turn come (the person's Next). */
export function stepRun(runId: string): Promise<void> {
  return backend.stepRun(runId);
}

/** Simulate mode by hand: the person's reply for `agent` (its turn now, or its next). */
export function typeReply(runId: string, agent: string, text: string): Promise<void> {
  return backend.typeReply(runId, agent, text);
}

/** Saves a run's recording: where the person chooses (offered as `name`), or at
 * `path` (automation). Answers where it went; null when the person cancelled. */
export function exportRecording(runId: string, path?: string, name?: string): Promise<string | null> {
  return backend.exportRun(runId, path, name);
}

/** Opens a run of crew `crew` from the runs list: one that may go on (running, or
 * paused and waiting for an answer) is watched, so Stop and Resume work; others are
 * replayed. */
export function openRun(run: Pick<RunSummary, "id" | "status">, crew?: string | null): Promise<void> {
  return run.status === "running" || run.status === "paused" ? watchRun(run.id, crew) : replayRun(run.id, crew);
}

/** Watches again from the last event the view has (after a watch fell behind). */
export async function catchUp(): Promise<void> {
  const view = runStore.getState().view;
  if (!view?.runId) return;
  runStore.getState().begin(view.runId);
  try {
    await backend.watchRun(view.runId, after(), feed());
  } catch {
    runStore.getState().end("lagged");
  }
}
