// The run's transcript (UX.md, the bottom region's middle): what the person asked,
// then each agent's turn under its name and avatar colour — its reply as it
// streams, its tool calls folded away, a pill for the signal it matched (or what
// came close when none did, with its fixes: MissedRoute.tsx) — the
// person's answers, and warnings; a turn that is over links to what its agent saw
// (SeenButton → SeenView). Follows the newest words unless the person
// scrolled up to read (useFollowing); a tracker line clicked brings its turn into
// view. A long run shows its newest entries (as many as its box holds while it
// follows them, SHOWN_LINES once the person scrolls up), the earlier ones behind a
// button.
import { memo, useEffect, useMemo, useState } from "react";
import { avatarColor, avatarLetter, behaviorWords } from "../../graph/style";
import type { ToolDecision } from "../../bindings/ToolDecision";
import type { Answer, Notice, RunView, Turn } from "../../run/reducer";
import { explainFailure } from "../../run/errors";
import { useRun } from "../../run/store";
import { type Namer, signalPill } from "../../run/words";
import { ForkButton } from "./ForkButton";
import { MissedNote } from "./MissedRoute";
import { SeenButton } from "./SeenButton";
import { SHOWN_LINES, useFollowing } from "./useFollowing";
import { useNames } from "./useNames";

/** The transcript's smallest entry with the gap after it (run.css): a one-line
 * warning, 28 px, and the 10 px gap; a turn is 50 at least. */
const LEAST_ENTRY_PX = 36;

type Entry =
  | { kind: "turn"; seq: number; turn: Turn }
  | { kind: "answer"; seq: number; answer: Answer }
  | { kind: "warning"; seq: number; notice: Notice };

/** Turns, answers and warnings in the order they happened. */
export function transcriptEntries(view: RunView): Entry[] {
  const entries: Entry[] = [
    ...view.turns.map((turn) => ({ kind: "turn" as const, seq: turn.id, turn })),
    ...view.answers.map((answer) => ({ kind: "answer" as const, seq: answer.seq, answer })),
    ...view.warnings.map((notice) => ({ kind: "warning" as const, seq: notice.seq, notice })),
  ];
  return entries.sort((a, b) => a.seq - b.seq);
}

export function Transcript() {
  const view = useRun((s) => s.view);
  const highlight = useRun((s) => s.highlight);
  // A run step by step: a turn whose model was asked waits for the person's Next.
  const stepping = useRun((s) => s.pace === "step" && s.replay === null && s.ended === null);
  const names = useNames();
  const { ref: scroller, onScroll, kept, stopFollowing } = useFollowing<HTMLDivElement>(view, view?.runId, LEAST_ENTRY_PX);

  useEffect(() => {
    if (highlight === null) return;
    const turn = scroller.current?.querySelector(`[data-turn="${highlight}"]`);
    if (turn instanceof HTMLElement) {
      stopFollowing();
      turn.scrollIntoView?.({ block: "nearest" });
    }
  }, [highlight, scroller, stopFollowing]);

  // A long run shows its newest entries (fewer while the transcript follows them);
  // all of them once asked, or when a tracker line points at a turn further back.
  const [all, setAll] = useState<string | null>(null);
  const entries = useMemo(() => (view ? transcriptEntries(view) : []), [view]);
  const highlighted = highlight === null ? -1 : entries.findIndex((e) => e.kind === "turn" && e.turn.id === highlight);
  const showAll = (all !== null && all === view?.runId) || (highlighted >= 0 && highlighted < entries.length - SHOWN_LINES);
  const shown = highlighted >= 0 && highlighted < entries.length - kept ? SHOWN_LINES : kept;
  const hidden = showAll ? 0 : Math.max(0, entries.length - shown);

  return (
    <div className="run-transcript" ref={scroller} onScroll={onScroll} aria-label="Transcript" role="log">
      {!view || (view.lastSeq < 0 && !view.input) ? (
        <p className="run-empty">Nothing has run yet. Write what the crew should do and press Run; the agents' replies appear here as they write them.</p>
      ) : (
        <>
          {view.input && (
            <div className="run-you">
              <span className="run-you-label">You asked</span>
              <p className="run-text">{view.input}</p>
            </div>
          )}
          {hidden > 0 && (
            <button type="button" className="run-more" onClick={() => setAll(view.runId)}>
              Show the {hidden} earlier turns and notes
            </button>
          )}
          {entries.slice(hidden).map((entry) =>
            entry.kind === "turn" ? (
              <TurnView
                key={`t${entry.seq}`}
                turn={entry.turn}
                names={names}
                highlighted={entry.turn.id === highlight}
                waitsForNext={stepping && entry.turn.state === "working" && entry.turn.asking}
              />
            ) : entry.kind === "answer" ? (
              <div key={`a${entry.seq}`} className="run-you">
                <span className="run-you-label">You answered {names(entry.answer.agent)}</span>
                <p className="run-text">{entry.answer.input || "(nothing)"}</p>
              </div>
            ) : (
              <p key={`w${entry.seq}`} className="run-warning">
                {entry.notice.message}
              </p>
            ),
          )}
        </>
      )}
    </div>
  );
}

/** One turn; a turn that did not change is not drawn again (its object is the same). */
type TurnProps = { turn: Turn; names: Namer; highlighted: boolean; waitsForNext: boolean };

const TurnView = memo(function TurnView({ turn, names, highlighted, waitsForNext }: TurnProps) {
  const name = names(turn.agent);
  return (
    <article
      className={`run-turn run-turn-${turn.state}${highlighted ? " highlighted" : ""}`}
      data-turn={turn.id}
      aria-label={`${name}'s turn`}
    >
      <header className="run-turn-header">
        <span className="run-avatar" style={{ background: avatarColor(turn.agent) }} aria-hidden>
          {avatarLetter(name)}
        </span>
        <span className="run-turn-name">{name}</span>
        {turn.group && <span className="run-turn-group">in {names(turn.group)}</span>}
        {waitsForNext ? (
          <span className="run-turn-next">waits for Next</span>
        ) : turn.state === "working" && (
          <span className="run-typing" role="img" aria-label="writing">
            <span />
            <span />
            <span />
          </span>
        )}
        <SeenButton turn={turn} name={name} />
        <ForkButton turn={turn} name={name} />
      </header>
      {turn.text ? <p className="run-text">{turn.text}</p> : turn.state === "working" ? null : <p className="run-text muted">(no reply)</p>}
      {turn.tools.map((tool) => (
        <details key={tool.seq} className="run-tool">
          <summary>
            Used {tool.name}
            {tool.result === null ? (tool.waiting ? " — waits for you to allow it" : tool.progress ? ` … ${progressWords(tool.progress)}` : " …") : ""}
            {tool.decision ? ` (${decisionWords[tool.decision]}${tool.reason ? `: ${tool.reason}` : ""})` : ""}
          </summary>
          <div className="run-tool-body">
            <span className="run-tool-label">Asked with</span>
            <pre>{JSON.stringify(tool.arguments, null, 2)}</pre>
            <span className="run-tool-label">Got back</span>
            <pre>{tool.result ?? "(waiting for the answer)"}</pre>
          </div>
        </details>
      ))}
      {turn.signal && (
        <span className={`run-signal run-signal-${turn.signal.behavior}`} title={`${behaviorWords[turn.signal.behavior]}${turn.signal.target ? ` (${names(turn.signal.target)})` : ""}${turn.signal.payload ? ` · ${turn.signal.payload}` : ""}`}>
          {signalPill(turn.signal)}
        </span>
      )}
      <MissedNote turn={turn} name={name} />
      {turn.state === "failed" && (
        // What went wrong in a person's words (the engine's own, above the columns, a click away).
        <p className="run-turn-error" title={turn.error ?? undefined}>
          {turn.error ? explainFailure(turn.error).headline : "This turn failed."}
        </p>
      )}
      {turn.state === "stopped" && <p className="run-turn-note">Stopped before the reply was finished.</p>}
      {turn.state === "timed_out" && <p className="run-turn-note">Did not finish in the group's time; the group went on without this reply.</p>}
    </article>
  );
});

/** A tool server's progress in words: "3 of 5", "40 %", with what it said. */
export function progressWords(p: { progress: number; total: number | null; message: string | null }): string {
  const amount = p.total ? (p.total === 100 ? `${Math.round(p.progress)} %` : `${p.progress} of ${p.total}`) : `${p.progress}`;
  return p.message ? `${amount}: ${p.message}` : amount;
}

/** A person's answer to a tool call, in words. */
const decisionWords: Record<ToolDecision, string> = {
  allow_once: "allowed",
  allow_run: "allowed for this run",
  deny: "not allowed",
};
