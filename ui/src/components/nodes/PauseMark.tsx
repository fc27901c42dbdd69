// The card's "pauses here" mark: a run of the crew open pauses before this agent's
// turn (chosen from the card's menu, kept per crew in the window: run/breakpoints.ts).
// Small and calm, beside the other tags; its accessible name says it in full.
import "./pauseMark.css";
import { useEditor } from "../../editor/store";
import { usePausesBefore } from "../../run/breakpoints";

export function PauseMark({ agent, name }: { agent: string | null | undefined; name: string }) {
  const crew = useEditor((s) => s.path);
  if (!usePausesBefore(crew, agent)) return null;
  const words = `A run pauses before ${name}'s turn`;
  return (
    <span className="pause-tag" role="img" aria-label={words} title={`${words}: you see what it is about to be given, and go on when you are ready`}>
      <span aria-hidden>❚❚</span> pauses here
    </span>
  );
}
