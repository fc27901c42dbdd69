// Two revisions of the crew side by side, over the canvas: both drawn as one graph
// (the engine's overlay: the newer revision, with what the older had put back),
// added cards and arrows in green, removed ones in red, changed ones in amber, a
// legend saying so; beside it every change in words and the instructions that
// changed as a line diff. Read-only: nothing here edits the crew.
import {
  Background,
  BackgroundVariant,
  Controls,
  Panel,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
} from "@xyflow/react";
import { useEffect, useMemo, useRef, useState } from "react";
import type { Change } from "../../bindings/Change";
import type { CrewDiff } from "../../bindings/CrewDiff";
import type { RevisionDiff } from "../../bindings/RevisionDiff";
import type { Positions } from "../../editor/history";
import { comparePlaces, markClass, markCounts, textChanges } from "../../editor/revisions";
import { drawArrows, labelsOf } from "../../graph/arrows";
import { gridAbove, gridPositions, inferDirection, layoutPositions, placeDropTargets, toEditorFlow } from "../../graph/editorFlow";
import { type Direction, layoutGraph, type Route } from "../../graph/layout";
import { edgeLabel } from "../../graph/style";
import type { CrewEdge, CrewNode } from "../../graph/toFlow";
import { CrewEdgeView } from "../edges/CrewEdge";
import { AgentNode } from "../nodes/AgentNode";
import { GroupNode } from "../nodes/GroupNode";
import { EndNode, RouterNode, WaitNode } from "../nodes/PseudoNodes";

const nodeTypes = { agent: AgentNode, group: GroupNode, end: EndNode, wait: WaitNode, router: RouterNode };
const edgeTypes = { crew: CrewEdgeView };
const noBadges = new Map();

const markWords: Record<Change, string> = { added: "new", removed: "removed", changed: "changed" };

function pillWords(mark: Change | undefined, words: string): string {
  return mark ? `${markWords[mark]} · ${words}` : words;
}

const legend: { mark: Change; words: string }[] = [
  { mark: "added", words: "added" },
  { mark: "removed", words: "removed" },
  { mark: "changed", words: "changed" },
];

type Props = {
  compared: RevisionDiff;
  /** Where the person placed the editor's nodes (used when every node has a place). */
  placed: Positions;
  onClose: () => void;
};

export function RevisionCompare(props: Props) {
  return (
    <ReactFlowProvider>
      <Compare {...props} />
    </ReactFlowProvider>
  );
}

function Compare({ compared, placed, onClose }: Props) {
  const { graph, marks } = compared.overlay;
  const [layout, setLayout] = useState<{ positions: Positions; routes: Map<string, Route>; direction: Direction } | null>(null);
  // A changed arrow says so on its pill too, in words (not only in colour).
  const labels = useMemo(() => labelsOf(graph.edges, (edge) => pillWords(marks[edge.id], edgeLabel(edge))), [graph, marks]);

  // The editor's places when they cover the graph, else an automatic layout of it.
  useEffect(() => {
    const kept = comparePlaces(graph, placed);
    if (kept) {
      setLayout({ positions: placeDropTargets(graph, kept), routes: new Map(), direction: inferDirection(graph, kept) });
      return;
    }
    if (graph.nodes.length > gridAbove) {
      setLayout({ positions: gridPositions(graph), routes: new Map(), direction: "RIGHT" });
      return;
    }
    let current = true;
    layoutGraph(graph, 1.6).then((laid) => {
      if (current) setLayout({ positions: layoutPositions(graph, laid), routes: laid.edges, direction: laid.direction });
    });
    return () => {
      current = false;
    };
  }, [graph, placed]);

  // Fitted again whenever its room changes (the window resized, the page zoomed).
  const { fitView } = useReactFlow();
  const room = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = room.current;
    if (!box || !layout || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => void fitView({ padding: 0.12 }));
    observer.observe(box);
    return () => observer.disconnect();
  }, [fitView, layout]);

  const flow = useMemo(() => {
    if (!layout) return { nodes: [] as CrewNode[], edges: [] as CrewEdge[] };
    const arrows = drawArrows({ view: graph, positions: layout.positions, direction: layout.direction, layout: layout.routes, labels });
    const drawn = toEditorFlow(graph, layout.positions, noBadges, { direction: layout.direction, arrows, labels });
    return {
      nodes: drawn.nodes.map((n) => ({ ...n, draggable: false, selectable: false, connectable: false, className: markClass(marks, n.id) })),
      edges: drawn.edges.map((e) => ({ ...e, selectable: false, className: markClass(marks, e.id) })),
    };
  }, [graph, layout, labels, marks]);

  const counts = markCounts(marks);

  return (
    <section className="revision-compare" aria-label={`Revision ${compared.from} compared with revision ${compared.to}`}>
      <header className="compare-header">
        <h2>
          Revision {compared.from} → revision {compared.to}
        </h2>
        <button type="button" className="primary" onClick={onClose}>
          Close the comparison
        </button>
      </header>
      <div className="compare-body">
        <div className="compare-canvas" role="region" aria-label="Both revisions drawn as one graph" ref={room}>
          {layout && (
            <ReactFlow<CrewNode, CrewEdge>
              nodes={flow.nodes}
              edges={flow.edges}
              nodeTypes={nodeTypes}
              edgeTypes={edgeTypes}
              nodesDraggable={false}
              nodesConnectable={false}
              elementsSelectable={false}
              fitView
              fitViewOptions={{ padding: 0.12 }}
              minZoom={0.03}
              maxZoom={2}
            >
              <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} />
              <Controls showInteractive={false} />
              <Panel position="top-left" className="diff-legend" aria-label="What the colours mean">
                {legend.map(({ mark, words }) => (
                  <span key={mark} className={`diff-key diff-key-${mark}`}>
                    <span className="diff-swatch" aria-hidden /> {words} ({counts[mark]})
                  </span>
                ))}
              </Panel>
            </ReactFlow>
          )}
        </div>
        <CompareWords changes={compared.changes} />
      </div>
    </section>
  );
}

/** Every change in words, and the instructions that changed as line diffs. */
export function CompareWords({ changes }: { changes: CrewDiff }) {
  const texts = textChanges(changes);
  const sentences = changes.sentences;
  return (
    <div className="compare-words">
      <h3>What changed</h3>
      {sentences.length === 0 ? (
        <p className="muted">Nothing changed in how the crew works.</p>
      ) : (
        <ul className="compare-sentences">
          {sentences.map((sentence) => (
            <li key={sentence}>{sentence.charAt(0).toUpperCase() + sentence.slice(1)}</li>
          ))}
        </ul>
      )}
      {texts.map((text) => (
        <figure key={text.key} className="text-diff">
          <figcaption>{text.title}</figcaption>
          {text.hunks.map((hunk) => (
            <pre key={`${hunk.old_start}:${hunk.new_start}`}>
              {hunk.lines.map((line, i) => {
                const sign = (
                  <span className="diff-sign" aria-hidden>
                    {line.kind === "added" ? "+" : line.kind === "removed" ? "−" : " "}
                  </span>
                );
                const words = `${line.text || " "}\n`;
                // A hunk's lines never move: their place is their key.
                const key = `${i}`;
                if (line.kind === "added")
                  return (
                    <ins key={key} className="diff-line added">
                      {sign}
                      {words}
                    </ins>
                  );
                if (line.kind === "removed")
                  return (
                    <del key={key} className="diff-line removed">
                      {sign}
                      {words}
                    </del>
                  );
                return (
                  <span key={key} className="diff-line same">
                    {sign}
                    {words}
                  </span>
                );
              })}
            </pre>
          ))}
        </figure>
      ))}
    </div>
  );
}
