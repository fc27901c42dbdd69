// The one-click fixes for a reply that came close to a signal without matching
// (run/nearMiss.ts): "Accept [QUESTON] as [QUESTION]" (the spelling becomes an
// alias of the signal) and "Remind Student of its signals" (a sentence at the end
// of its instructions). Each is one edit of the crew open in the editor — one undo
// step named as the button is, checked by the engine as any edit — and once made,
// the hint says so instead of offering it (read from the crew, so Undo offers it
// again). Shown under the agent's card (`compact`: its first fix only), in the
// tracker and under the turn in the transcript.
import "./nearMiss.css";
import { type ReactNode, useState } from "react";
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { NearMiss } from "../../bindings/NearMiss";
import type { EditResult } from "../../editor/result";
import { acceptSpelling, canAccept, firstFix, isFixed, type NearMissFix, remindOfSignals } from "../../editor/nearMissFixes";
import { editorStore, useEditor } from "../../editor/store";
import { acceptedWords, acceptWords, remindedWords, remindWords } from "../../run/nearMiss";

type Props = {
  /** The agent whose reply it was (its id). */
  agent: string;
  /** Its name, as the window shows it. */
  name: string;
  /** What came closest. */
  miss: NearMiss;
  /** Under a card: its first fix only (`firstFix`). */
  compact?: boolean;
};

export function NearMissFixes({ agent, name, miss, compact = false }: Props) {
  const spec = useEditor((s) => s.spec);
  const unsaved = useEditor((s) => s.dirty);
  const [refusal, setRefusal] = useState<string | null>(null);
  if (!spec) return null;

  const accepted = isFixed(spec, agent, miss, "accept");
  const reminded = isFixed(spec, agent, miss, "remind");
  // Offered when the edit would change the crew as it is now (a crew edited since
  // the run may no longer have the signal, or the agent).
  const offers = (fix: (s: CrewSpec) => EditResult) => {
    const result = fix(spec);
    return result.ok && result.spec !== spec;
  };
  const make = (label: string, fix: (s: CrewSpec) => EditResult) => {
    const result = editorStore.getState().edit(label, fix);
    setRefusal(result.ok ? null : result.error);
  };
  const acceptLabel = acceptWords(miss);
  const remindLabel = remindWords(name);
  const fixes: { fix: NearMissFix; made: boolean; words: string; button: ReactNode }[] = [
    {
      fix: "accept",
      made: accepted,
      words: acceptedWords(miss),
      button:
        canAccept(miss) && !accepted && offers((s) => acceptSpelling(s, agent, miss)) ? (
          <button key="accept" type="button" className="near-miss-fix" onClick={() => make(acceptLabel, (s) => acceptSpelling(s, agent, miss))}>
            {acceptLabel}
          </button>
        ) : null,
    },
    {
      fix: "remind",
      made: reminded,
      words: remindedWords(name),
      button:
        !reminded && offers((s) => remindOfSignals(s, agent)) ? (
          <button
            key="remind"
            type="button"
            className="near-miss-fix"
            onClick={() => make(remindLabel, (s) => remindOfSignals(s, agent))}
            title={`Ends ${name}'s instructions with a sentence listing its signals, written exactly as they must be`}
          >
            {remindLabel}
          </button>
        ) : null,
    },
  ];
  // Under a card, only its first fix: offered, or said to be made.
  const here = compact ? fixes.filter((f) => f.fix === firstFix(miss)) : fixes;
  const done = here.filter((f) => f.made).map((f) => f.words);
  const shown = here.map((f) => f.button).filter((button) => button !== null);
  if (shown.length === 0 && done.length === 0 && refusal === null) return null;
  return (
    <div className="near-miss-fixes">
      {done.length > 0 && (
        <p className="near-miss-done" role="status">
          <span aria-hidden>✓ </span>
          {done.join("; ")}
          {unsaved ? " — save the crew to keep it." : "."}
        </p>
      )}
      {shown.length > 0 && (
        <div className="near-miss-buttons" role="group" aria-label={`Fixes for ${name}'s signal`}>
          {shown}
        </div>
      )}
      {refusal && (
        <p className="near-miss-refused" role="alert">
          {refusal}
        </p>
      )}
    </div>
  );
}
