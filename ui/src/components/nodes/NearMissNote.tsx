// Under an agent's card, once its latest reply matched none of its signals but came
// close to one (issue 18): "Student wrote [QUESTON] — did you mean [QUESTION]?" and
// its first fix ("Accept [QUESTON] as [QUESTION]"); once that fix is made, only
// what was done (the note stays short: it lies over what is below the card). The
// tracker and the transcript have the rest. Reads only that turn from the run
// store, so tokens of other agents do not redraw it. Its buttons are the card's
// own (`nodrag`, `nokey`): pressing one neither drags nor toggles the card.
import { firstFix, isFixed } from "../../editor/nearMissFixes";
import { useEditor } from "../../editor/store";
import type { Turn } from "../../run/reducer";
import { latestTurn } from "../../run/reducer";
import { missWords } from "../../run/nearMiss";
import { useRun } from "../../run/store";
import { NearMissFixes } from "../run/NearMissFixes";

export function NearMissNote({ agent, name }: { agent: string | null; name: string }) {
  const turn = useRun((s): Turn | null => {
    const latest = agent && s.graph ? latestTurn(s.graph, agent) : null;
    return latest && latest.missed.length > 0 ? latest : null;
  });
  const fixed = useEditor((s) => {
    const miss = turn?.missed[0];
    return Boolean(agent && miss && s.spec && isFixed(s.spec, agent, miss, firstFix(miss)));
  });
  if (!agent || !turn) return null;
  const miss = turn.missed[0];
  const words = missWords(miss, name);
  return (
    <div className="agent-miss nodrag nopan nokey" role="group" aria-label={`${name}'s reply matched no signal`}>
      {!fixed && (
        <p className="agent-miss-words" title={`${words} (none of ${name}'s signals matched its reply)`}>
          {words}
        </p>
      )}
      <NearMissFixes agent={agent} name={name} miss={miss} compact />
    </div>
  );
}
