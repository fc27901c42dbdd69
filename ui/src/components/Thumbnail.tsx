// A small picture of a crew's graph for the start view, drawn from the same
// automatic layout as the canvas.
import { useEffect, useState } from "react";
import type { GraphView } from "../bindings/GraphView";
import { absoluteBox, type Layout, layoutGraph } from "../graph/layout";
import { edgeColor } from "../graph/style";

// Pictures already laid out, by graph: coming back to the start view draws them at
// once instead of laying every crew out again (the crew list keeps its objects).
const laidOut = new WeakMap<GraphView, Layout>();

export function Thumbnail({ graph }: { graph: GraphView }) {
  const [layout, setLayout] = useState<Layout | null>(() => laidOut.get(graph) ?? null);
  useEffect(() => {
    const known = laidOut.get(graph);
    if (known) {
      setLayout(known);
      return;
    }
    let current = true;
    // The card's picture is about 2.4 times as wide as it is high.
    layoutGraph(graph, 2.4).then(
      (laid) => {
        laidOut.set(graph, laid);
        if (current) setLayout(laid);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [graph]);
  if (!layout || graph.nodes.length === 0) return <div className="thumbnail empty" aria-hidden />;
  return (
    <svg className="thumbnail" viewBox={`0 0 ${layout.width} ${layout.height}`} preserveAspectRatio="xMidYMid meet" aria-hidden>
      {graph.nodes
        .filter((n) => n.kind === "group")
        .map((n) => {
          const box = absoluteBox(graph, layout, n.id);
          return box && <rect key={n.id} className="thumb-group" x={box.x} y={box.y} width={box.width} height={box.height} rx={14} />;
        })}
      {graph.edges.map((e) => {
        const route = layout.edges.get(e.id);
        if (!route) return null;
        return (
          <polyline key={e.id} points={route.points.map((p) => `${p.x},${p.y}`).join(" ")} fill="none" stroke={edgeColor(e)}
            strokeWidth={5} strokeDasharray={e.kind === "fallback" ? "12 10" : undefined} opacity={0.85} />
        );
      })}
      {graph.nodes
        .filter((n) => n.kind !== "group")
        .map((n) => {
          const box = absoluteBox(graph, layout, n.id);
          return box && <rect key={n.id} className={`thumb-node thumb-${n.kind}`} x={box.x} y={box.y} width={box.width} height={box.height} rx={n.kind === "agent" ? 12 : 24} />;
        })}
    </svg>
  );
}
