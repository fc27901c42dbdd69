// The graph editor: the crew on the canvas where the person placed it, a toolbar,
// the inspector (forms for what is selected), the problems list. Every change is a
// pure edit through the editor store (one undo step each), which the engine checks
// at once; the canvas draws the engine's verdict, so what is drawn is what will run.
// While the view is the fitted one, the crew stays fitted when the canvas changes
// size (the run dock unfolding, the window resized); once the person zooms or pans,
// their view is left alone until they fit it again. Arrows run around the cards
// (graph/arrows.ts); right-click menus (canvasMenus.ts) offer what the toolbar and
// the shortcuts do, on what was clicked; agents added while the app runs are drawn
// too (useRuntimeAgents.ts).
import "../../canvas.css";
import {
  Background,
  BackgroundVariant,
  type Connection,
  type FinalConnectionState,
  Controls,
  MiniMap,
  type NodeChange,
  ReactFlow,
  ReactFlowProvider,
  type OnSelectionChangeParams,
  type Viewport,
  applyNodeChanges,
  getViewportForBounds,
  useReactFlow,
  useStore,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { CrewDocument } from "../../bindings/CrewDocument";
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { GraphView } from "../../bindings/GraphView";
import { copyAgents, type ClipboardPayload, pasteAgents } from "../../editor/clipboard";
import { deleteItems } from "../../editor/deleteItems";
import { addFallback, repointEdge, repointKind } from "../../editor/edges";
import { addMember, createGroup, removeMember } from "../../editor/groups";
import type { Positions } from "../../editor/history";
import { canRedo, canUndo, redoLabel, undoLabel } from "../../editor/history";
import { type EditorState, editorStore, useEditor } from "../../editor/store";
import { drawArrows } from "../../graph/arrows";
import {
  fillPositions,
  freeSpot,
  gridAbove,
  gridPositions,
  groupDrop,
  inferDirection,
  layoutPositions,
  placeDropTargets,
  placeNew,
  toEditorFlow,
  withDropTargets,
} from "../../graph/editorFlow";
import { type Direction, layoutGraph, layoutIn, type Route } from "../../graph/layout";
import { writtenLines } from "../../graph/lineSignals";
import { badgesByTarget, problemSummary, type ShownProblem } from "../../graph/problems";
import { agentNodeId, arrowOf, graphRefs, groupNodeId, inSelection, nodeRef } from "../../graph/refs";
import { edgeLabel } from "../../graph/style";
import { type CardInfo, cardInfo, type CrewEdge, type CrewNode, refOfNode } from "../../graph/toFlow";
import { CrewEdgeView } from "../edges/CrewEdge";
import { CheckIcon, ErrorIcon } from "../icons";
import { EditorInspector, NewAgentDialog } from "../inspector/EditorInspector";
import { Legend } from "../Legend";
import { AgentNode } from "../nodes/AgentNode";
import { GroupNode } from "../nodes/GroupNode";
import { EndNode, RouterNode, WaitNode } from "../nodes/PseudoNodes";
import { useModelWarnings } from "../../models/useModelWarnings";
import { runStore, useRun } from "../../run/store";
import { endWords } from "../../run/words";
import { ProblemsPanel } from "../ProblemsPanel";
import { SelectionContext } from "../selection";
import { RunDock } from "../run/RunDock";
import { menuFor } from "./canvasMenus";
import { ChooseDialog } from "./ChooseDialog";
import { ConnectDialog, type PendingConnection } from "./ConnectDialog";
import { ContextMenu } from "./ContextMenu";
import { FarView } from "./FarView";
import { useLargeCanvas } from "./useLargeCanvas";
import { HelpOverlay } from "./HelpOverlay";
import { HistoryPanel } from "./HistoryPanel";
import { MenuContext, type MenuTarget } from "./menuTarget";
import { UnsavedDialog } from "./UnsavedDialog";
import { useRuntimeAgents } from "./useRuntimeAgents";
import type { Files } from "./useFiles";
import { type Theme, useTheme } from "./useTheme";

const nodeTypes = { agent: AgentNode, group: GroupNode, end: EndNode, wait: WaitNode, router: RouterNode };
const edgeTypes = { crew: CrewEdgeView };
/** Below this zoom, a crew of more than `farAbove` nodes is painted by FarView
 * instead of React Flow (a small crew is cheap to draw at any size). */
const farZoom = 0.45;
const farAbove = 150;
const minZoom = 0.03;
/** Room kept around a fitted crew: clear of the legend (top left) and the zoom
 * buttons (bottom left), a little on the other sides — in pixels, so a small canvas
 * does not give a fifth of itself to margins. */
const fitPadding = { top: "52px", left: "52px", right: "28px", bottom: "28px" } as const;
/** The room the words under a finished run's End node take (run.css: at most 260 px
 * wide, up to three lines). */
const endWordsRoom = { width: 260, height: 60 };
const noNodes: CrewNode[] = [];
const noEdges: CrewEdge[] = [];
const edit = (...args: Parameters<EditorState["edit"]>) => editorStore.getState().edit(...args);
/** The crew's agents among the selected node ids. */
const selectedAgents = (spec: CrewSpec, ids: string[]) => inSelection(spec, ids).agents;
/** The problems an empty crew has by being empty (no agents, so no first agent
 * either): the canvas says what to do instead. */
const emptiness = (p: ShownProblem) => {
  const problem = (p.diagnostic as { problem?: { code: string; field?: string } }).problem;
  return problem?.code === "no_agents" || (problem?.code === "missing_field" && problem.field === "entry_point");
};
/** The event that opens the try-out chat with one agent (the run side listens). */
const TRY_AGENT_EVENT = "crewgraph:try-agent";

function reducedMotion(): boolean {
  return typeof window !== "undefined" && window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
}

export function EditorView({ files }: { files: Files }) {
  return (
    <ReactFlowProvider>
      <Editor files={files} />
    </ReactFlowProvider>
  );
}

function Editor({ files }: { files: Files }) {
  const spec = useEditor((s) => s.spec);
  const document = useEditor((s) => s.document);
  const positions = useEditor((s) => s.positions);
  const selection = useEditor((s) => s.selection);
  const dirty = useEditor((s) => s.dirty);
  const validating = useEditor((s) => s.validating);
  const checkError = useEditor((s) => s.checkError);
  const history = useEditor((s) => s.history);
  const path = useEditor((s) => s.path);
  const flow = useReactFlow<CrewNode, CrewEdge>();
  // Zoomed far out, cards show only their names and arrows lose their pills: less to
  // paint on every frame of a big crew, and nothing readable is lost at that size.
  // (Leaving is at a higher zoom than entering, so hovering at the line does not
  // switch back and forth.)
  const farBefore = useRef(false);
  const big = (document?.graph.nodes.length ?? 0) > farAbove;
  const far = useStore((s) => big && s.transform[2] < (farBefore.current ? farZoom * 1.15 : farZoom));
  farBefore.current = far;
  useLargeCanvas(big && !far);
  const canvas = useRef<HTMLDivElement>(null);
  const clipboard = useRef<ClipboardPayload | null>(null);
  const [pending, setPending] = useState<PendingConnection | null>(null);
  const [adding, setAdding] = useState<{ x: number; y: number } | null | undefined>(undefined);
  const [help, setHelp] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  const [tool, setTool] = useState<"signal" | "fallback">("signal");
  const [theme, setTheme] = useTheme();
  const [nodes, setNodes] = useState<CrewNode[]>([]);
  // Which way the work flows (from the last automatic layout): where handles sit.
  const [direction, setDirection] = useState<Direction>("RIGHT");
  // The last automatic layout's routes, which edges follow while their ends stay put.
  const [routes, setRoutes] = useState<Map<string, Route>>(new Map());
  // A right-click menu (where, about what), and a place to choose (connect, re-point).
  const [menu, setMenu] = useState<{ target: MenuTarget; at: { x: number; y: number }; flowAt: { x: number; y: number } } | null>(null);
  const [choosing, setChoosing] = useState<{ kind: "connect"; from: string } | { kind: "repoint"; edge: string } | null>(null);
  const fitted = useRef(false);
  // The overview (minimap) only where it leaves the crew room.
  const [roomy, setRoomy] = useState(true);
  useRuntimeAgents(path);
  const aspect = useCallback(() => {
    const box = canvas.current;
    return box && box.clientHeight > 0 ? box.clientWidth / box.clientHeight : undefined;
  }, []);

  // The engine's problems, and the window's warnings about the models the crew runs on.
  const warnings = useModelWarnings();
  const empty = (spec?.agents.length ?? 0) === 0;
  const problems = useMemo(
    () => [...(document?.problems ?? []).filter((p) => !empty || !emptiness(p)), ...warnings],
    [document, warnings, empty],
  );
  const badges = useMemo(() => badgesByTarget(problems), [problems]);

  // End and Wait are always on the canvas to drop edges on; until an edge leads
  // there they float to the right of the crew (placed here, not stored).
  const graph = useMemo(() => (document ? withDropTargets(document.graph) : null), [document]);
  const floating = useMemo(() => (document ? ["end", "wait"].filter((id) => !document.graph.nodes.some((n) => n.id === id)) : []), [document]);
  const shown = useMemo(() => (graph ? placeDropTargets(graph, positions, floating) : positions), [graph, positions, floating]);
  const floatingAt = useRef<Positions>({});
  // (Where each last floated: kept after an edge leads there, so it stays put.)
  floatingAt.current = { ...floatingAt.current, ...Object.fromEntries(floating.map((id) => [id, shown[id]])) };

  // The words on each arrow's pill: a line signal as its agent writes it.
  const written = useMemo(() => writtenLines(document?.signals ?? []), [document]);
  const pillWords = useCallback((edge: Parameters<typeof edgeLabel>[0]) => edgeLabel(edge, written), [written]);
  const pillLabels = useMemo(() => new Map((graph?.edges ?? []).map((e) => [e.id, pillWords(e)])), [graph, pillWords]);
  // What each agent's card says besides the graph: where a reply without a signal
  // goes when no arrow says so, and whether it was added while the app runs.
  const cards = useMemo(() => (document && graph ? cardInfo(document, graph) : new Map<string, CardInfo>()), [document, graph]);
  // The arrows as last drawn (below), for placing new cards off them.
  const arrowsNow = useRef<Map<string, Route>>(new Map());

  // Nodes the engine drew that have no place yet get one from an automatic layout
  // (all of them for a crew opened for the first time) — not an undo step, and not an
  // unsaved change. End or Wait, just connected, stays where it floated.
  useEffect(() => {
    if (!document) return;
    const carried: Positions = {};
    for (const id of ["end", "wait"]) {
      if (!positions[id] && floatingAt.current[id] && document.graph.nodes.some((n) => n.id === id)) carried[id] = floatingAt.current[id];
    }
    if (Object.keys(carried).length) {
      editorStore.getState().place(carried);
      return;
    }
    const missing = document.graph.nodes.filter((n) => !positions[n.id] && !(n.kind === "group" && document.graph.nodes.some((m) => m.parent === n.id)));
    if (missing.length === 0) return;
    let current = true;
    if (document.graph.nodes.length > gridAbove) {
      editorStore.getState().place(gridPositions(document.graph));
      return;
    }
    // A few new nodes in a crew already placed (an agent added while the app runs):
    // each where there is room, after the card it comes from, off every arrow.
    const placed = document.graph.nodes.filter((n) => n.kind !== "group" && positions[n.id] && n.id !== "end" && n.id !== "wait");
    if (placed.length > 0) {
      const lines = [...arrowsNow.current.values()].map((r) => r.points);
      const next = { ...editorStore.getState().positions };
      for (const node of missing) next[node.id] = placeNew(document.graph, next, node.id, direction, lines);
      editorStore.getState().place(next);
      return;
    }
    layoutGraph(document.graph, aspect(), pillWords).then((layout) => {
      if (!current) return;
      setDirection(layout.direction);
      setRoutes(layout.edges);
      const state = editorStore.getState();
      state.place(fillPositions(document.graph, state.positions, layout));
    });
    return () => {
      current = false;
    };
  }, [document, positions, aspect, direction, pillWords]);

  // A crew opened with every card where the person put it: the work flows the way
  // the cards are laid out, and when they are where the automatic layout would put
  // them, its routes are drawn.
  const looked = useRef(false);
  useEffect(() => {
    if (looked.current || !document || !graph) return;
    const placed = document.graph.nodes.filter((n) => n.kind !== "group");
    if (placed.length === 0 || placed.some((n) => !positions[n.id])) return;
    looked.current = true;
    const way = inferDirection(document.graph, positions);
    setDirection(way);
    if (document.graph.nodes.length > gridAbove) return;
    let current = true;
    layoutIn(document.graph, way, pillWords).then(
      (layout) => {
        const laid = layoutPositions(document.graph, layout);
        const same = Object.entries(laid).every(([id, at]) => {
          const now = editorStore.getState().positions[id];
          return now && Math.abs(now.x - at.x) < 1 && Math.abs(now.y - at.y) < 1;
        });
        if (current && same) setRoutes(layout.edges);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [document, graph, positions, pillWords]);

  // Every arrow's route around the cards and its pill's place.
  const arrows = useMemo(
    () => (graph ? drawArrows({ view: graph, positions: shown, direction, layout: routes, labels: pillLabels }) : new Map<string, Route>()),
    [graph, shown, direction, routes, pillLabels],
  );
  arrowsNow.current = arrows;

  const flowGraph = useMemo(() => {
    if (!graph) return { nodes: [], edges: [] };
    const drawn = toEditorFlow(graph, shown, badges, { direction, arrows, labels: pillLabels, cards });
    // A floating End or Wait follows the crew: it is not dragged.
    return { ...drawn, nodes: drawn.nodes.map((n) => (floating.includes(n.id) ? { ...n, draggable: false } : n)) };
  }, [graph, shown, floating, badges, direction, arrows, pillLabels, cards]);
  const selected = useMemo(() => new Set(selection), [selection]);
  useEffect(() => {
    setNodes(flowGraph.nodes.map((n) => ({ ...n, selected: selected.has(n.id) })));
  }, [flowGraph, selected]);
  const edges = useMemo(() => flowGraph.edges.map((e) => ({ ...e, selected: selected.has(e.id) })), [flowGraph, selected]);

  // The viewport the last fit set (null: none yet): while the view is still that one,
  // the person has not zoomed or panned since.
  const fittedView = useRef<Viewport | null>(null);
  // Fits every card on screen (computed here: zoomed far out, React Flow holds none).
  const fitCrew = useCallback(
    (duration = 300) => {
      const box = canvas.current;
      const drawn = flowGraph.nodes;
      if (!box || drawn.length === 0) return;
      // (The End node's room includes the words a finished run shows under it.)
      const worded = endWords(runStore.getState().graph) !== null;
      const bounds = (n: CrewNode) => {
        const width = n.width ?? 0;
        const height = n.height ?? 0;
        if (n.type !== "end" || !worded) return { left: n.position.x, top: n.position.y, right: n.position.x + width, bottom: n.position.y + height };
        const centre = n.position.x + width / 2;
        return { left: Math.min(n.position.x, centre - endWordsRoom.width / 2), top: n.position.y, right: Math.max(n.position.x + width, centre + endWordsRoom.width / 2), bottom: n.position.y + height + endWordsRoom.height };
      };
      const boxes = drawn.map(bounds);
      // (Arrows that go around the outside, and their pills, are in view too.)
      for (const route of arrowsNow.current.values()) {
        for (const p of route.points) boxes.push({ left: p.x, top: p.y, right: p.x, bottom: p.y });
        if (route.label) boxes.push({ left: route.label.x - 60, top: route.label.y - 12, right: route.label.x + 60, bottom: route.label.y + 12 });
      }
      const left = Math.min(...boxes.map((b) => b.left));
      const top = Math.min(...boxes.map((b) => b.top));
      const right = Math.max(...boxes.map((b) => b.right));
      const bottom = Math.max(...boxes.map((b) => b.bottom));
      // An empty crew's hint takes the top of the canvas: End and Wait go below it.
      const hint = box.querySelector(".canvas-hint");
      const reserved = hint ? Math.max(0, hint.getBoundingClientRect().bottom - box.getBoundingClientRect().top + 8) : 0;
      const room = Math.max(box.clientHeight - reserved, box.clientHeight / 4);
      const fit = getViewportForBounds({ x: left, y: top, width: right - left, height: bottom - top }, box.clientWidth, room, minZoom, 1.1, fitPadding);
      const viewport = { ...fit, y: fit.y + (box.clientHeight - room) };
      fittedView.current = viewport;
      flow.setViewport(viewport, { duration: reducedMotion() ? 0 : duration });
    },
    [flow, flowGraph],
  );
  useEffect(() => {
    if (fitted.current || nodes.length === 0 || nodes.some((n) => n.type !== "group" && !shown[n.id])) return;
    fitted.current = true;
    requestAnimationFrame(() => fitCrew(0));
  }, [nodes, shown, fitCrew]);


  // The canvas changed size (the run dock unfolded or folded, the window was
  // resized), or a run's end put words under the End node: fitted again, unless the
  // person has moved the view since the last fit.
  const fitLatest = useRef(fitCrew);
  fitLatest.current = fitCrew;
  const worded = useRun((s) => endWords(s.graph) !== null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: worded is the trigger (words appeared under End)
  useEffect(() => {
    const last = fittedView.current;
    if (last && sameView(flow.getViewport(), last)) fitLatest.current();
  }, [worded, flow]);
  useEffect(() => {
    const box = canvas.current;
    if (!box || typeof ResizeObserver === "undefined") return;
    let size = { width: box.clientWidth, height: box.clientHeight };
    setRoomy(roomyCanvas(box));
    const observer = new ResizeObserver(() => {
      const now = { width: box.clientWidth, height: box.clientHeight };
      setRoomy(roomyCanvas(box));
      if (now.width === size.width && now.height === size.height) return;
      size = now;
      const last = fittedView.current;
      if (!last || now.width === 0 || now.height === 0 || !sameView(flow.getViewport(), last)) return;
      fitLatest.current(0);
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, [flow]);

  // Dragging moves cards on screen at once; the store gets the new places (one undo
  // step) when the drag ends, and a card dropped into or out of a group frame joins
  // or leaves that group.
  const onNodesChange = useCallback((changes: NodeChange<CrewNode>[]) => {
    setNodes((all) => applyNodeChanges(changes, all));
  }, []);
  const onNodeDragStop = useCallback(
    (_: unknown, __: CrewNode, dragged: CrewNode[]) => {
      const state = editorStore.getState();
      const moved: Positions = { ...state.positions };
      for (const node of dragged) moved[node.id] = { x: Math.round(node.position.x), y: Math.round(node.position.y) };
      const single = dragged.length === 1 ? dragged[0] : null;
      const { agent, join, leave } = single && document ? groupDrop(document.graph, moved, single.id) : { agent: null, join: [], leave: [] };
      if (agent && (join.length || leave.length)) {
        const group = join[0] ?? leave[0];
        const joining = join.length > 0;
        edit(joining ? `Add ${agent} to ${group}` : `Take ${agent} out of ${group}`, (s) => (joining ? addMember(s, group, agent) : removeMember(s, group, agent)), {
          positions: moved,
        });
      } else {
        state.move(moved, dragged.length > 1 ? `Move ${dragged.length} items` : "Move");
      }
    },
    [document],
  );

  const onConnect = useCallback(
    (connection: Connection) => {
      // What the two cards are, from their data.
      const nodeAt = (id: string | null) => (id ? flow.getNode(id) : undefined);
      const source = nodeAt(connection.source);
      const target = nodeAt(connection.target);
      const from = source?.data.agent;
      if (!from || !target) return;
      if (tool === "fallback") {
        const to = target.data.agent;
        if (!to) return;
        edit(`Hand off from ${from} to ${to} when no signal matches`, (s) => addFallback(s, from, to));
        return;
      }
      setPending({ from, to: refOfNode(target.data) });
    },
    [tool, flow],
  );

  const farNow = useRef(far);
  farNow.current = far;
  // A connection dropped anywhere on a card (not only on its small in-handle) goes
  // to that card: a bigger target for a person with a mouse.
  const onConnectEnd = useCallback(
    (event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
      if (state.isValid || !state.fromNode) return;
      const point = "changedTouches" in event ? event.changedTouches[0] : event;
      const target = window.document.elementFromPoint(point.clientX, point.clientY)?.closest(".react-flow__node")?.getAttribute("data-id");
      if (!target) return;
      onConnect({ source: state.fromNode.id, target, sourceHandle: "out", targetHandle: "in" });
    },
    [onConnect],
  );

  const onSelectionChange = useCallback(({ nodes: picked, edges: pickedEdges }: OnSelectionChangeParams) => {
    // Zoomed far out React Flow holds no cards, which is not the person deselecting.
    if (farNow.current) return;
    const ids = [...picked.map((n) => n.id), ...pickedEdges.map((e) => e.id)];
    const current = editorStore.getState().selection;
    if (ids.length !== current.length || ids.some((id, i) => id !== current[i])) editorStore.getState().select(ids);
  }, []);

  const deleteSelection = useCallback(() => {
    const { selection: ids, document: doc, spec: current, checked } = editorStore.getState();
    if (!doc || !current || ids.length === 0) return;
    if (checked !== current) return; // the verdict is behind: rule numbers may be stale
    const one = inSelection(current, ids);
    const label = ids.length === 1 ? `Delete ${one.agents[0] ?? one.groups[0] ?? ids[0]}` : `Delete ${ids.length} items`;
    const result = edit(label, (s) => deleteItems(s, ids, doc.graph));
    if (result.ok) editorStore.getState().select([]);
  }, []);

  const copy = useCallback(() => {
    const { selection: ids, spec: current } = editorStore.getState();
    const agents = current ? selectedAgents(current, ids) : [];
    if (current && agents.length) clipboard.current = copyAgents(current, agents);
  }, []);

  /** Pastes the copied agents: beside the originals, or with the first at `at`. */
  const paste = useCallback((at?: { x: number; y: number }, payload = clipboard.current, label?: string) => {
    if (!payload) return;
    const before = editorStore.getState().positions;
    const first = payload.agents[0]?.id;
    const origin = first ? before[agentNodeId(first)] : undefined;
    const shift = at && origin ? { x: at.x - origin.x, y: at.y - origin.y } : { x: 40, y: 40 };
    const words = label ?? `Paste ${payload.agents.length} agent${payload.agents.length === 1 ? "" : "s"}`;
    const result = editorStore.getState().edit(words, (s) => pasteAgents(s, payload), {
      positions: (pasted) => {
        const placed: Positions = { ...before };
        for (const [from, to] of Object.entries(pasted.ids)) {
          const was = before[agentNodeId(from)] ?? { x: 0, y: 0 };
          placed[agentNodeId(to)] = { x: Math.round(was.x + shift.x), y: Math.round(was.y + shift.y) };
        }
        return placed;
      },
    });
    if (result.ok) editorStore.getState().select(Object.values(result.ids).map(agentNodeId));
  }, []);

  // A new group gets a free name at once (renamed in its panel), so making one is a
  // single click and a single undo step.
  const group = useCallback(() => {
    const { selection: ids, spec: current } = editorStore.getState();
    const agents = current ? selectedAgents(current, ids) : [];
    if (!current || agents.length === 0) return;
    const taken = new Set([...Object.keys(current.routing?.parallel_groups ?? {}), ...current.agents.map((a) => a.id)]);
    let n = 1;
    while (taken.has(`group_${n}`)) n += 1;
    const id = `group_${n}`;
    const result = edit(`Group ${agents.length} agent${agents.length === 1 ? "" : "s"}`, (s) => createGroup(s, id, agents));
    if (result.ok) editorStore.getState().select([groupNodeId(id)]);
  }, []);

  const tidy = useCallback(() => {
    const doc = editorStore.getState().document;
    if (!doc) return;
    // Fitted once the new places are drawn (two frames on), not the old ones: the
    // graph could otherwise end up off screen.
    const fitLater = () => requestAnimationFrame(() => requestAnimationFrame(() => fitLatest.current()));
    if (doc.graph.nodes.length > gridAbove) {
      editorStore.getState().move(gridPositions(doc.graph), "Tidy up");
      fitLater();
      return;
    }
    layoutGraph(doc.graph, aspect(), pillWords).then((layout) => {
      setDirection(layout.direction);
      setRoutes(layout.edges);
      editorStore.getState().move(layoutPositions(doc.graph, layout), "Tidy up");
      fitLater();
    });
  }, [aspect, pillWords]);

  const addAt = useCallback(
    (event: React.MouseEvent) => {
      const target = event.target as HTMLElement;
      if (!target.classList.contains("react-flow__pane")) return;
      setAdding(flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    },
    [flow],
  );

  const addCentered = useCallback(() => {
    const box = canvas.current?.getBoundingClientRect();
    const centre = box ? flow.screenToFlowPosition({ x: box.left + box.width / 2 - 116, y: box.top + box.height / 2 - 52 }) : { x: 0, y: 0 };
    // Where nothing else is, so the new card is not hidden under another or on an arrow.
    const lines = [...arrowsNow.current.values()].map((r) => r.points);
    setAdding(graph ? freeSpot(graph, editorStore.getState().positions, "agent:\u0000new", centre, lines) : centre);
  }, [flow, graph]);

  // Brings a node that is off screen (a new card placed where there was room) into view.
  const reveal = useCallback(
    (ids: string[]) => {
      const id = ids.length === 1 ? ids[0] : null;
      const at = id ? editorStore.getState().positions[id] : undefined;
      const box = canvas.current?.getBoundingClientRect();
      if (!id || !at || !box) return;
      const topLeft = flow.flowToScreenPosition(at);
      const bottomRight = flow.flowToScreenPosition({ x: at.x + 232, y: at.y + 88 });
      const inside = topLeft.x >= box.left && topLeft.y >= box.top && bottomRight.x <= box.right && bottomRight.y <= box.bottom;
      if (!inside) flow.setCenter(at.x + 116, at.y + 44, { zoom: flow.getZoom(), duration: reducedMotion() ? 0 : 300 });
    },
    [flow],
  );

  // Right-click menus: on the canvas, a node or an arrow, where it was clicked.
  const openMenu = useCallback(
    (target: MenuTarget, at: { x: number; y: number }) => setMenu({ target, at, flowAt: flow.screenToFlowPosition(at) }),
    [flow],
  );
  const closeMenu = useCallback(() => setMenu(null), []);
  // The menu of what has focus (Shift+F10, the context-menu key): an arrow's pill,
  // a card, else what is selected, else the canvas — opened at its place.
  const openMenuForFocus = useCallback(() => {
    const active = window.document.activeElement;
    const box = canvas.current?.getBoundingClientRect();
    const below = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { x: r.left + Math.min(24, r.width / 2), y: r.top + Math.min(r.height, 40) };
    };
    const pill = active?.closest(".edge-pill[data-edge]");
    const node = active?.closest(".react-flow__node[data-id]");
    const edge = active?.closest(".react-flow__edge[data-id]");
    if (pill) return openMenu({ kind: "edge", id: pill.getAttribute("data-edge") ?? "" }, below(pill));
    if (node) return openMenu({ kind: "node", id: node.getAttribute("data-id") ?? "" }, below(node));
    if (edge) return openMenu({ kind: "edge", id: edge.getAttribute("data-id") ?? "" }, below(edge));
    const selected = editorStore.getState().selection;
    const one = selected.length === 1 ? selected[0] : null;
    const shownOne = one ? (canvas.current?.querySelector(`[data-id="${CSS.escape(one)}"]`) ?? canvas.current?.querySelector(`[data-edge="${CSS.escape(one)}"]`)) : null;
    if (one && shownOne) {
      const isEdge = editorStore.getState().document?.graph.edges.some((e) => e.id === one);
      return openMenu(isEdge ? { kind: "edge", id: one } : { kind: "node", id: one }, below(shownOne));
    }
    if (box) openMenu({ kind: "canvas" }, { x: box.left + box.width / 2, y: box.top + box.height / 2 });
  }, [openMenu]);

  // Keyboard shortcuts (not while typing in a field).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const typing = event.target instanceof HTMLElement && event.target.closest("input, textarea, select, [contenteditable=true]");
      const ctrl = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (ctrl && key === "s") {
        event.preventDefault();
        void (event.shiftKey ? files.saveAs() : files.save());
        return;
      }
      if (typing || pending || adding !== undefined || menu || choosing) return;
      if ((event.key === "F10" && event.shiftKey) || event.key === "ContextMenu") {
        event.preventDefault();
        openMenuForFocus();
        return;
      }
      const state = editorStore.getState();
      if (ctrl && key === "z" && !event.shiftKey) {
        event.preventDefault();
        state.undo();
      } else if (ctrl && ((key === "z" && event.shiftKey) || key === "y")) {
        event.preventDefault();
        state.redo();
      } else if (ctrl && key === "c") {
        copy();
      } else if (ctrl && key === "v") {
        paste();
      } else if (ctrl && key === "a") {
        event.preventDefault();
        state.select((state.document?.graph.nodes ?? []).map((n) => n.id));
      } else if (ctrl) {
        return;
      } else if (key === "delete" || key === "backspace") {
        deleteSelection();
      } else if (key === "escape") {
        state.select([]);
      } else if (key === "?") {
        setHelp(true);
      } else if (key === "a") {
        addCentered();
      } else if (key === "f") {
        fitCrew();
      } else if (key === "l") {
        tidy();
      } else if (key === "g") {
        group();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [files, pending, adding, menu, choosing, openMenuForFocus, copy, paste, deleteSelection, addCentered, fitCrew, tidy, group]);

  const focusTarget = useCallback(
    (id: string | null) => {
      editorStore.getState().select(id ? [id] : []);
      if (!id || !document) return;
      const edge = document.graph.edges.find((e) => e.id === id);
      const ids = edge ? [edge.source, edge.target] : [id];
      flow.fitView({ nodes: ids.map((n) => ({ id: n })), padding: 0.4, maxZoom: 1.1, duration: reducedMotion() ? 0 : 300 });
    },
    [document, flow],
  );

  // What the menus' items do.
  const removeOne = useCallback((id: string) => {
    const { document: doc, spec: current, checked } = editorStore.getState();
    if (!doc || !current || checked !== current) return;
    const one = inSelection(current, [id]);
    const edge = doc.graph.edges.find((e) => e.id === id);
    const names = (nodeId: string) => doc.graph.nodes.find((n) => n.id === nodeId)?.label ?? nodeId;
    const label = edge ? `Delete the arrow from ${names(edge.source)} to ${names(edge.target)}` : `Delete ${one.agents[0] ?? one.groups[0] ?? id}`;
    if (edit(label, (s) => deleteItems(s, [id], doc.graph)).ok) editorStore.getState().select([]);
  }, []);
  const duplicate = useCallback(
    (agent: string) => {
      const { spec: current, positions: now } = editorStore.getState();
      const at = now[agentNodeId(agent)];
      if (!current || !graph) return;
      const lines = [...arrowsNow.current.values()].map((r) => r.points);
      const spot = at ? freeSpot(graph, now, "agent:\u0000new", { x: at.x, y: at.y + 164 }, lines) : undefined;
      const name = current.agents.find((a) => a.id === agent)?.name || agent;
      paste(spot, copyAgents(current, [agent]), `Duplicate ${name}`);
    },
    [graph, paste],
  );
  const editItem = useCallback((id: string) => {
    editorStore.getState().select([id]);
    // The inspector's first field, once it shows the item.
    requestAnimationFrame(() => window.document.querySelector<HTMLElement>(".ins input, .ins textarea, .ins select, .ins button")?.focus());
  }, []);
  const menuContent = useMemo(() => {
    if (!menu || !spec || !graph) return null;
    return menuFor(menu.target, spec, graph, {
      addHere: () => setAdding(menu.flowAt),
      paste: () => paste(menu.flowAt),
      canPaste: clipboard.current !== null,
      tidy,
      fit: () => fitCrew(),
      edit: editItem,
      tryAgent: (agent) => window.dispatchEvent(new CustomEvent(TRY_AGENT_EVENT, { detail: { agent } })),
      connectFrom: (from) => setChoosing({ kind: "connect", from }),
      duplicate,
      remove: removeOne,
      repoint: (edge) => setChoosing({ kind: "repoint", edge }),
    });
  }, [menu, spec, graph, paste, tidy, fitCrew, editItem, duplicate, removeOne]);

  if (!spec) return null;
  const errors = problems.filter((p) => p.diagnostic.severity === "error").length;
  const name = spec.name?.trim() || "Untitled crew";
  const fileName = path ? path.split("/").filter(Boolean).pop() : "not saved yet";

  return (
    <SelectionContext.Provider value={(id) => editorStore.getState().select(id ? [id] : [])}>
      <MenuContext.Provider value={openMenu}>
        <div className="crew-view editor">
          <header className="crew-header">
            <div className="crew-title">
              <h1>
                {name}
                {dirty && (
                  <span className="dirty-dot" title="Changes not saved yet" role="img" aria-label="Changes not saved yet">
                    ●
                  </span>
                )}
              </h1>
              <p className="crew-file" title={path ?? undefined}>
                {fileName}
              </p>
            </div>
            <CrewStatus document={document} problems={problems} errors={errors} validating={validating} checkError={checkError} empty={empty} />
            <div className="file-actions">
              <button type="button" className={dirty ? "primary" : ""} onClick={() => void files.save()} title="Save (Ctrl+S)">
                Save
              </button>
              <button type="button" onClick={() => void files.saveAs()} title="Save as a new file (Ctrl+Shift+S)">
                Save as…
              </button>
              <button type="button" onClick={() => void files.exportYaml()} title="Write the crew as one YAML file somewhere else">
                Export YAML
              </button>
              <button type="button" className={showHistory ? "on" : ""} onClick={() => setShowHistory(!showHistory)} disabled={!path} aria-pressed={showHistory} title={path ? "Every revision of this crew, what changed, and its runs" : "Save the crew first: each save keeps a revision"}>
                History
              </button>
            </div>
          </header>
          <Toolbar
            tool={tool}
            setTool={setTool}
            theme={theme}
            setTheme={setTheme}
            onAdd={addCentered}
            onGroup={group}
            onTidy={tidy}
            onFit={() => fitCrew()}
            onHelp={() => setHelp(true)}
            undoTitle={undoLabel(history) ?? "Nothing to undo"}
            redoTitle={redoLabel(history) ?? "Nothing to redo"}
            canUndo={canUndo(history)}
            canRedo={canRedo(history)}
            canGroup={spec !== null && selectedAgents(spec, selection).length > 0}
          />
          <div className="crew-body">
            <div className="canvas-column">
              <div className={`canvas${far ? " far" : ""}`} role="region" aria-label="Crew graph" ref={canvas} onDoubleClick={addAt}>
                {spec.agents.length === 0 && (
                  <div className="canvas-hint">
                    <p>This crew has no agents yet.</p>
                    <button type="button" className="primary" onClick={addCentered}>
                      Add the first agent
                    </button>
                    <p className="muted">or double-click anywhere on the canvas. Runs start with the first agent you add.</p>
                  </div>
                )}
                <ReactFlow<CrewNode, CrewEdge>
                  nodes={far ? noNodes : nodes}
                  edges={far ? noEdges : edges}
                  nodeTypes={nodeTypes}
                  edgeTypes={edgeTypes}
                  onNodesChange={onNodesChange}
                  onNodeDragStop={onNodeDragStop}
                  onConnect={onConnect}
                  onConnectEnd={onConnectEnd}
                  onSelectionChange={onSelectionChange}
                  onPaneClick={() => editorStore.getState().select([])}
                  onPaneContextMenu={(event) => {
                    event.preventDefault();
                    openMenu({ kind: "canvas" }, { x: event.clientX, y: event.clientY });
                  }}
                  onNodeContextMenu={(event, node) => {
                    event.preventDefault();
                    editorStore.getState().select([node.id]);
                    openMenu({ kind: "node", id: node.id }, { x: event.clientX, y: event.clientY });
                  }}
                  onEdgeContextMenu={(event, edge) => {
                    event.preventDefault();
                    editorStore.getState().select([edge.id]);
                    openMenu({ kind: "edge", id: edge.id }, { x: event.clientX, y: event.clientY });
                  }}
                  nodesConnectable
                  nodesDraggable
                  elementsSelectable
                  selectionOnDrag={false}
                  multiSelectionKeyCode={["Control", "Meta", "Shift"]}
                  deleteKeyCode={null}
                  zoomOnDoubleClick={false}
                  connectionRadius={28}
                  colorMode={theme === "system" ? "system" : theme}
                  minZoom={minZoom}
                  maxZoom={2}
                  onlyRenderVisibleElements={!far}
                >
                  {far && <FarView nodes={nodes} edges={edges} />}
                  {/* Dots a pixel apart (zoomed far out) cost more to paint than the whole crew. */}
                  {!far && <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} />}
                  <Controls showInteractive={false} onFitView={() => fitCrew()} />
                  {!far && roomy && <MiniMap pannable zoomable nodeStrokeWidth={3} ariaLabel="Overview of the crew" style={{ width: 150, height: 96 }} />}
                  <Legend />
                </ReactFlow>
              </div>
              <ProblemsPanel problems={problems} onSelect={focusTarget} />
            </div>
            {showHistory && path ? <HistoryPanel crew={path} onClose={() => setShowHistory(false)} /> : <EditorInspector />}
          </div>
          <RunDock crewPath={path} crewValid={document?.valid ?? false} unsaved={dirty} />
          {pending && <ConnectDialog pending={pending} onClose={() => setPending(null)} />}
          {adding !== undefined && (
            <NewAgentDialog
              position={adding ?? undefined}
              onClose={() => {
                setAdding(undefined);
                reveal(editorStore.getState().selection);
              }}
            />
          )}
          {help && <HelpOverlay onClose={() => setHelp(false)} />}
          {menu && menuContent && menuContent.items.length > 0 && (
            <ContextMenu at={menu.at} label={menuContent.label} items={menuContent.items} onClose={closeMenu} />
          )}
          {choosing && graph && <Choosing choosing={choosing} graph={graph} onConnect={setPending} onClose={() => setChoosing(null)} />}
          <UnsavedDialog />
        </div>
      </MenuContext.Provider>
    </SelectionContext.Provider>
  );
}

/** A canvas big enough for the overview in its corner without hiding the crew. */
function roomyCanvas(box: HTMLElement): boolean {
  return box.clientWidth >= 640 && box.clientHeight >= 380;
}

/** Two viewports a person could not tell apart. */
function sameView(a: Viewport, b: Viewport): boolean {
  return Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.zoom - b.zoom) < 1e-3;
}

type CrewStatusProps = {
  document: CrewDocument | null;
  problems: ShownProblem[];
  errors: number;
  validating: boolean;
  checkError: string | null;
  /** The crew has no agents yet: the status says what to do first. */
  empty: boolean;
};

function CrewStatus({ document, problems, errors, validating, checkError, empty }: CrewStatusProps) {
  if (checkError) {
    return (
      <div className="crew-status bad" role="status">
        <ErrorIcon size={16} /> <span>Could not check the crew: {checkError}</span>
      </div>
    );
  }
  if (empty && errors === 0) {
    return (
      <div className="crew-status" role="status">
        <span>No agents yet: add the first one</span>
      </div>
    );
  }
  if (!document) {
    return (
      <div className="crew-status" role="status">
        <span>Checking…</span>
      </div>
    );
  }
  return (
    <div className={`crew-status ${errors ? "bad" : "good"}${validating ? " checking" : ""}`} role="status">
      {errors ? <ErrorIcon size={16} /> : <CheckIcon size={16} />}
      <span>
        {errors ? `Cannot run yet: ${problemSummary(problems)}` : problems.length ? `Ready to run (${problemSummary(problems)})` : "Ready to run"}
      </span>
    </div>
  );
}

type ToolbarProps = {
  tool: "signal" | "fallback";
  setTool: (tool: "signal" | "fallback") => void;
  theme: Theme;
  setTheme: (theme: Theme) => void;
  onAdd: () => void;
  onGroup: () => void;
  onTidy: () => void;
  onFit: () => void;
  onHelp: () => void;
  undoTitle: string;
  redoTitle: string;
  canUndo: boolean;
  canRedo: boolean;
  canGroup: boolean;
};

function Toolbar(props: ToolbarProps) {
  const { tool, setTool, theme, setTheme } = props;
  const nextTheme: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };
  return (
    <div className="toolbar" role="toolbar" aria-label="Editing">
      <button type="button" className="primary" onClick={props.onAdd} title="Add an agent (A)">
        + Add agent
      </button>
      <div className="tool-switch" role="radiogroup" aria-label="What dragging between cards draws">
        <button type="button" role="radio" aria-checked={tool === "signal"} className={tool === "signal" ? "on" : ""} onClick={() => setTool("signal")} title="Drag from one card to another to route work with a signal">
          Signal arrow
        </button>
        <button type="button" role="radio" aria-checked={tool === "fallback"} className={tool === "fallback" ? "on" : ""} onClick={() => setTool("fallback")} title="Drag from one card to another: hand off there when no signal matches">
          Otherwise arrow
        </button>
      </div>
      <button type="button" onClick={props.onGroup} disabled={!props.canGroup} title="Make a parallel group of the selected agents (G)">
        Group
      </button>
      <span className="toolbar-gap" />
      <button type="button" onClick={() => editorStore.getState().undo()} disabled={!props.canUndo} title={`${props.undoTitle} (Ctrl+Z)`} aria-label="Undo">
        ↶ Undo
      </button>
      <button type="button" onClick={() => editorStore.getState().redo()} disabled={!props.canRedo} title={`${props.redoTitle} (Ctrl+Shift+Z)`} aria-label="Redo">
        ↷ Redo
      </button>
      <button type="button" onClick={props.onTidy} title="Lay the graph out automatically (L)">
        Tidy up
      </button>
      <button type="button" onClick={props.onFit} title="Fit the whole crew on screen (F)">
        Fit
      </button>
      <span className="toolbar-gap" />
      <button type="button" onClick={() => setTheme(nextTheme[theme])} title={`Theme: ${theme} (click to change)`} aria-label={`Theme: ${theme}`}>
        {theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}
      </button>
      <button type="button" onClick={props.onHelp} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">
        ?
      </button>
    </div>
  );
}

type ChoosingProps = {
  choosing: { kind: "connect"; from: string } | { kind: "repoint"; edge: string };
  graph: GraphView;
  onConnect: (pending: PendingConnection) => void;
  onClose: () => void;
};

/** "Connect Teacher to…" (then the connect dialog asks the signal) and "Re-point
 * this arrow to…" (an ordinary edit, one undo step). */
function Choosing({ choosing, graph, onConnect, onClose }: ChoosingProps) {
  const spec = useEditor((s) => s.spec);
  const [refusal, setRefusal] = useState<string | null>(null);
  if (!spec) return null;
  const own = new Set(spec.agents.map((a) => a.id));
  const agentName = (id: string) => spec.agents.find((a) => a.id === id)?.name || id;
  if (choosing.kind === "connect") {
    const from = choosing.from;
    const choices = graph.nodes.flatMap((n) => {
      if (n.kind === "agent" && n.agent && own.has(n.agent)) {
        return [{ value: n.id, label: n.agent === from ? `${n.label} (itself)` : n.label, detail: n.role ?? undefined }];
      }
      if (n.kind === "group" && n.group) return [{ value: n.id, label: `The group ${n.label}`, detail: "its members work side by side" }];
      if (n.kind === "end") return [{ value: n.id, label: "End", detail: "the run is finished" }];
      if (n.kind === "wait") return [{ value: n.id, label: "Wait", detail: "the crew waits for you" }];
      return [];
    });
    return (
      <ChooseDialog
        title={`Connect ${agentName(from)} to…`}
        help={`Where can ${agentName(from)}'s work go? Next you choose the signal that sends it there.`}
        choices={choices}
        empty="There is nowhere to connect to yet."
        onClose={onClose}
        onChoose={(value) => {
          const node = graph.nodes.find((n) => n.id === value);
          if (!node) return;
          onClose();
          onConnect({ from, to: nodeRef(node) });
        }}
      />
    );
  }
  const edge = graph.edges.find((e) => e.id === choosing.edge);
  if (!edge) return null;
  const arrow = arrowOf(edge, graphRefs(graph));
  const kind = repointKind(arrow);
  const name = (id: string) => graph.nodes.find((n) => n.id === id)?.label ?? id;
  const current = arrow.target.agent ?? arrow.target.group;
  const choices =
    kind === "group"
      ? Object.keys(spec.routing?.parallel_groups ?? {})
          .filter((g) => g !== current)
          .map((g) => ({ value: g, label: `The group ${g}` }))
      : spec.agents.flatMap((a) =>
          a.id && a.id !== current && !(edge.kind === "fallback" && a.id === arrow.source.agent) ? [{ value: a.id, label: a.name || a.id, detail: a.role }] : [],
        );
  return (
    <ChooseDialog
      title={`Re-point the arrow from ${name(edge.source)}`}
      help={`It leads to ${name(edge.target)} now. Where should it lead instead?`}
      choices={choices}
      empty={kind === "group" ? "There is no other group." : "There is no other agent."}
      error={refusal}
      onClose={onClose}
      onChoose={(value) => {
        const to = kind === "group" ? value : agentName(value);
        const result = edit(`Re-point the arrow from ${name(edge.source)} to ${to}`, (s) => repointEdge(s, arrow, value));
        if (!result.ok) {
          setRefusal(result.error);
          return;
        }
        editorStore.getState().select([]);
        onClose();
      }}
    />
  );
}
