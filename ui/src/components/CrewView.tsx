// An opened crew: the graph on the canvas (laid out automatically), the inspector
// on the right, the problems list underneath. Clicking a problem selects the node
// or edge it is about.
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  getViewportForBounds,
  useEdgesState,
  useNodesState,
  useReactFlow,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { CrewDocument } from "../bindings/CrewDocument";
import { type Layout, layoutGraph } from "../graph/layout";
import { badgesByTarget, problemSummary } from "../graph/problems";
import { type CrewEdge, type CrewNode, toFlow } from "../graph/toFlow";
import { CrewEdgeView } from "./edges/CrewEdge";
import { CheckIcon, ErrorIcon } from "./icons";
import { Inspector } from "./Inspector";
import { Legend } from "./Legend";
import { AgentNode } from "./nodes/AgentNode";
import { GroupNode } from "./nodes/GroupNode";
import { EndNode, RouterNode, WaitNode } from "./nodes/PseudoNodes";
import { ProblemsPanel } from "./ProblemsPanel";
import { SelectionContext } from "./selection";

const nodeTypes = { agent: AgentNode, group: GroupNode, end: EndNode, wait: WaitNode, router: RouterNode };
const edgeTypes = { crew: CrewEdgeView };

function reducedMotion(): boolean {
  return typeof window !== "undefined" && window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
}

export function CrewView({ doc }: { doc: CrewDocument }) {
  return (
    <ReactFlowProvider>
      <CrewCanvas doc={doc} />
    </ReactFlowProvider>
  );
}

function CrewCanvas({ doc }: { doc: CrewDocument }) {
  const [layout, setLayout] = useState<Layout | null>(null);
  const [layoutError, setLayoutError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [nodes, setNodes, onNodesChange] = useNodesState<CrewNode>([]);
  const [edges, setEdges, onEdgesChange] = useEdgesState<CrewEdge>([]);
  const flow = useReactFlow<CrewNode, CrewEdge>();
  const badges = useMemo(() => badgesByTarget(doc.problems), [doc]);
  const canvas = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let current = true;
    setLayout(null);
    setSelected(null);
    const box = canvas.current;
    const aspect = box && box.clientHeight > 0 ? box.clientWidth / box.clientHeight : undefined;
    layoutGraph(doc.graph, aspect)
      .then((laid) => current && setLayout(laid))
      .catch((error: unknown) => current && setLayoutError(String(error)));
    return () => {
      current = false;
    };
  }, [doc]);

  // Fits the whole drawing — routes and pills included, which React Flow's own fit
  // (nodes only) would cut off — into the canvas.
  const fitAll = useCallback(
    (duration = 0) => {
      const box = canvas.current;
      if (!layout || !box) return;
      const bounds = { x: 0, y: 0, width: layout.width, height: layout.height };
      const viewport = getViewportForBounds(bounds, box.clientWidth, box.clientHeight, 0.2, 1.1, 0.04);
      flow.setViewport(viewport, { duration: reducedMotion() ? 0 : duration });
    },
    [layout, flow],
  );

  useEffect(() => {
    if (!layout) return;
    const next = toFlow(doc.graph, layout, badges);
    setNodes(next.nodes);
    setEdges(next.edges);
    requestAnimationFrame(() => fitAll());
  }, [layout, doc, badges, setNodes, setEdges, fitAll]);

  // Selection is ours (clicks on cards, pills and problems all set it).
  useEffect(() => {
    setNodes((all) => all.map((n) => (n.selected === (n.id === selected) ? n : { ...n, selected: n.id === selected })));
    setEdges((all) => all.map((e) => (e.selected === (e.id === selected) ? e : { ...e, selected: e.id === selected })));
  }, [selected, setNodes, setEdges]);

  // From the problems list: select the culprit and bring it into view.
  const focus = useCallback(
    (id: string | null) => {
      setSelected(id);
      if (!id) return;
      const edge = doc.graph.edges.find((e) => e.id === id);
      const ids = edge ? [edge.source, edge.target] : [id];
      flow.fitView({ nodes: ids.map((n) => ({ id: n })), padding: 0.4, maxZoom: 1.1, duration: reducedMotion() ? 0 : 300 });
    },
    [doc, flow],
  );

  const errors = doc.problems.filter((p) => p.diagnostic.severity === "error").length;
  return (
    <SelectionContext.Provider value={setSelected}>
      <div className="crew-view">
        <header className="crew-header">
          <div className="crew-title">
            <h1>{doc.name}</h1>
            {doc.description && <p>{doc.description}</p>}
          </div>
          <div className={`crew-status ${errors ? "bad" : "good"}`} role="status">
            {errors ? <ErrorIcon size={16} /> : <CheckIcon size={16} />}
            <span>{errors ? `Cannot run yet: ${problemSummary(doc.problems)}` : doc.problems.length ? `Ready to run (${problemSummary(doc.problems)})` : "Ready to run"}</span>
          </div>
        </header>
        <div className="crew-body">
          <div className="canvas-column">
            <div className="canvas" aria-label="Crew graph" ref={canvas}>
              {!doc.parsed ? (
                <div className="canvas-empty">
                  <ErrorIcon size={28} />
                  <p>This file could not be read as a crew, so there is nothing to draw yet.</p>
                  <p>The problems below say what to fix.</p>
                </div>
              ) : layoutError ? (
                <div className="canvas-empty">
                  <p>The graph could not be laid out: {layoutError}</p>
                </div>
              ) : (
                <ReactFlow<CrewNode, CrewEdge>
                  nodes={nodes}
                  edges={edges}
                  nodeTypes={nodeTypes}
                  edgeTypes={edgeTypes}
                  onNodesChange={onNodesChange}
                  onEdgesChange={onEdgesChange}
                  onNodeClick={(_, node) => setSelected(node.id)}
                  onEdgeClick={(_, edge) => setSelected(edge.id)}
                  onPaneClick={() => setSelected(null)}
                  nodesConnectable={false}
                  elementsSelectable
                  colorMode="system"
                  minZoom={0.2}
                  maxZoom={2}
                >
                  <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} />
                  <Controls showInteractive={false} onFitView={() => fitAll(300)} />
                  <MiniMap pannable zoomable nodeStrokeWidth={3} ariaLabel="Overview of the crew" style={{ width: 150, height: 96 }} />
                  <Legend />
                </ReactFlow>
              )}
            </div>
            <ProblemsPanel problems={doc.problems} onSelect={focus} />
          </div>
          <Inspector doc={doc} selected={selected} />
        </div>
      </div>
    </SelectionContext.Provider>
  );
}
