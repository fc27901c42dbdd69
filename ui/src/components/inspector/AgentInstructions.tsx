// Under the agent's prompt: what Crewgraph appends to it about the agent's
// signals, as the engine writes it for the crew as it is now (asked again a
// moment after each change).
import { useEffect, useId, useState } from "react";
import { backend } from "../../backend";
import { useEditor } from "../../editor/store";

/** How long the crew must stay unchanged before the engine is asked again. */
export const INSTRUCTIONS_DELAY_MS = 300;

type Shown = { state: "loading" } | { state: "done"; text: string | null } | { state: "failed" };

export function AgentInstructions({ agentId }: { agentId: string }) {
  const id = useId();
  const spec = useEditor((s) => s.spec);
  const [shown, setShown] = useState<Shown>({ state: "loading" });
  useEffect(() => {
    if (!spec) return;
    let live = true;
    const timer = setTimeout(() => {
      backend.agentInstructions(spec, agentId).then(
        (text) => live && setShown({ state: "done", text }),
        () => live && setShown({ state: "failed" }),
      );
    }, INSTRUCTIONS_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [spec, agentId]);

  return (
    <div className="ins-field">
      <div className="ins-label" id={id}>
        Crewgraph adds this about its signals:
      </div>
      {shown.state === "done" && shown.text ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region a keyboard must be able to scroll
        <pre className="ins-appended" role="region" aria-labelledby={id} tabIndex={0}>
          {shown.text}
        </pre>
      ) : (
        <p className="ins-appended empty" role="note" aria-labelledby={id}>
          {shown.state === "loading"
            ? "Asking Crewgraph…"
            : shown.state === "failed"
              ? "Crewgraph could not show this just now."
              : "Nothing: this agent has no signals to send yet. Draw an arrow from it to add one."}
        </p>
      )}
      <p className="ins-help">Read only: it changes when you change this agent's routes and signals.</p>
    </div>
  );
}
