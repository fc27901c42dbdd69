// A reply that did not route, as the run dock shows it (issue 18): a line of the
// tracker at its place among the moves — "Student wrote [QUESTON] — did you mean
// [QUESTION]?" with its time; clicked, the agent's card is selected and its turn
// brought into view — and a note under that turn in the transcript, each with the
// one-click fixes (NearMissFixes). Whatever else came close is listed after the best.
import { memo } from "react";
import type { NearMiss } from "../../bindings/NearMiss";
import { editorStore } from "../../editor/store";
import { agentNodeId } from "../../graph/refs";
import { alsoCloseWords, missWords, replyTime } from "../../run/nearMiss";
import type { Turn } from "../../run/reducer";
import { runStore } from "../../run/store";
import { type Namer, timeOf } from "../../run/words";
import { NearMissFixes } from "./NearMissFixes";

/** Shows the reply: the agent selected on the graph, its turn in the transcript. */
function showMissed(turn: Turn): void {
  editorStore.getState().select([agentNodeId(turn.agent)]);
  runStore.getState().highlightTurn(turn.id);
}

/** The tracker's line for a reply that did not route; drawn again only when it changed. */
export const MissedLine = memo(function MissedLine({ turn, names, highlighted }: { turn: Turn; names: Namer; highlighted: boolean }) {
  const [best, ...others] = turn.missed;
  const name = names(turn.agent);
  const at = replyTime(turn);
  return (
    <li className="run-missed">
      <button
        type="button"
        className={`run-handoff run-move-missed${highlighted ? " highlighted" : ""}`}
        onClick={() => showMissed(turn)}
        title={`None of ${name}'s signals matched its reply. Show the reply: ${name} on the graph, the turn in the transcript`}
      >
        <span className="run-handoff-who">{missWords(best, name)}</span>
        <time className="run-handoff-time" dateTime={at}>
          {timeOf(at)}
        </time>
      </button>
      <AlsoClose misses={others} />
      <NearMissFixes agent={turn.agent} name={name} miss={best} />
    </li>
  );
});

/** Under the turn in the transcript: what came close, and the fixes. */
export function MissedNote({ turn, name }: { turn: Turn; name: string }) {
  if (turn.missed.length === 0) return null;
  const [best, ...others] = turn.missed;
  return (
    <div className="near-miss near-miss-turn">
      <p className="near-miss-words">{missWords(best, name)}</p>
      <AlsoClose misses={others} />
      <NearMissFixes agent={turn.agent} name={name} miss={best} />
    </div>
  );
}

function AlsoClose({ misses }: { misses: NearMiss[] }) {
  return misses.length > 0 ? <p className="near-miss-also">Also close: {alsoCloseWords(misses)}</p> : null;
}
