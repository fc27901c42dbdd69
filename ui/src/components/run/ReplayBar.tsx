// The controls of a replay (a past run shown on the graph): back to the start, a
// step back, play or pause, a step forward, a slider over the run's events, and
// the speed (1× or 4×). While playing, events follow each other as far apart as
// they happened (at least 40 ms, at most 0.6 s, divided by the speed).
import { useEffect } from "react";
import type { RunEvent } from "../../bindings/RunEvent";
import { runStore, useRun } from "../../run/store";

const fastest = 40;
const slowest = 600;

/** How long to show event `index` before the next, at `speed`. */
export function replayDelay(events: readonly RunEvent[], index: number, speed: number): number {
  const here = Date.parse(events[index]?.timestamp ?? "");
  const next = Date.parse(events[index + 1]?.timestamp ?? "");
  const gap = Number.isNaN(here) || Number.isNaN(next) ? fastest : next - here;
  return Math.min(slowest, Math.max(fastest, gap)) / speed;
}

/** Moves a playing replay on, one event at a time. */
function useReplayClock(): void {
  const playing = useRun((s) => s.replay?.playing ?? false);
  const position = useRun((s) => s.replay?.position ?? -1);
  const speed = useRun((s) => s.replay?.speed ?? 1);
  useEffect(() => {
    if (!playing) return;
    const { events } = runStore.getState();
    const timer = window.setTimeout(() => runStore.getState().stepTo(position + 1), position < 0 ? fastest : replayDelay(events, position, speed));
    return () => window.clearTimeout(timer);
  }, [playing, position, speed]);
}

export function ReplayBar() {
  const replay = useRun((s) => s.replay);
  useReplayClock();
  if (!replay) return null;
  const { position, playing, speed } = replay;
  const count = replay.frames.length;
  const store = runStore.getState();
  return (
    <div className="run-replay" role="group" aria-label="Replay">
      <button type="button" onClick={() => store.stepTo(-1)} disabled={position < 0} title="Back to the start" aria-label="Back to the start">
        |◀
      </button>
      <button type="button" onClick={() => store.stepTo(position - 1)} disabled={position < 0} title="One event back" aria-label="One event back">
        ◀
      </button>
      <button type="button" className="primary" onClick={() => (playing ? store.pause() : store.play())} aria-label={playing ? "Pause" : "Play"} title={playing ? "Pause" : "Play the run again"}>
        {playing ? "❚❚" : "▶"}
      </button>
      <button type="button" onClick={() => store.stepTo(position + 1)} disabled={position >= count - 1} title="One event on" aria-label="One event on">
        ▶|
      </button>
      <input
        type="range"
        min={-1}
        max={count - 1}
        value={position}
        onChange={(e) => store.stepTo(Number(e.target.value))}
        aria-label="Where in the run"
        aria-valuetext={`Event ${position + 1} of ${count}`}
      />
      <span className="run-replay-where">
        {position + 1} / {count}
      </span>
      <button type="button" onClick={() => store.setSpeed(speed === 1 ? 4 : 1)} aria-label={`Speed ${speed}×`} title="Change the speed">
        {speed}×
      </button>
      <button type="button" onClick={() => store.reset()} title="Stop replaying">
        Close
      </button>
    </div>
  );
}
