// What the colours and line styles mean, one click away (UX.md).
import { Panel } from "@xyflow/react";
import { useState } from "react";
import type { Behavior } from "../bindings/Behavior";
import { behaviorColor, behaviorWords, kindWords } from "../graph/style";
import { InfoIcon } from "./icons";
import { ForkLegend } from "./run/ForkLegend";

const behaviors: Behavior[] = ["route", "parallel", "broadcast", "terminate", "pause"];

export function Legend() {
  const [open, setOpen] = useState(false);
  return (
    <Panel position="top-left" className="legend">
      <button type="button" className="legend-toggle" onClick={() => setOpen(!open)} aria-expanded={open}>
        <InfoIcon size={14} /> {open ? "Hide legend" : "Legend"}
      </button>
      {open && (
        <ul className="legend-list">
          {behaviors.map((b) => (
            <li key={b}>
              <svg width="34" height="10" aria-hidden>
                <line x1="0" y1="5" x2="34" y2="5" stroke={behaviorColor[b]} strokeWidth="2.5" />
              </svg>
              <span>
                <b>{b}</b>: {behaviorWords[b]}
              </span>
            </li>
          ))}
          <li>
            <svg width="34" height="10" aria-hidden>
              <line x1="0" y1="5" x2="34" y2="5" stroke="#94a3b8" strokeWidth="2" strokeDasharray="6 5" />
            </svg>
            <span>
              <b>otherwise</b>: {kindWords.fallback.replace("otherwise: ", "")}
            </span>
          </li>
          <li>
            <span className="legend-card-line">No signal → …</span>
            <span>
              on a card: where a reply <b>without a signal</b> goes when no otherwise arrow says (chosen automatically)
            </span>
          </li>
          <li>
            <span className="legend-swatch runtime" />
            <span>
              <b>dashed card</b>: an agent added while the app runs, not in the crew's file
            </span>
          </li>
          <li>
            <span className="legend-swatch error" /> <span>a problem to fix</span>
          </li>
          <li>
            <span className="legend-swatch warning" /> <span>a warning: it runs, but check it</span>
          </li>
        </ul>
      )}
      <ForkLegend />
    </Panel>
  );
}
