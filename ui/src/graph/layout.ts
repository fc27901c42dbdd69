// Automatic layout of a crew graph with ELK (layered, left to right, orthogonal
// edges). Group frames are compound nodes that contain their members. Every node
// gets one port in the middle of its left side and one in the middle of its right
// side, at exactly the places React Flow draws its handles, so ELK's edge routes
// start and end where the canvas expects them.
//
// ELK (1.6 MB of script) runs in a Web Worker of its own, loaded the first time a
// crew is laid out: the window's first view does not wait for it, and a big
// layout never holds up the page. Without workers (the unit tests, in Node) it
// runs in the page instead.
import type { ELK, ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api";
import elkWorker from "elkjs/lib/elk-worker.min.js?url";
import type { GraphView } from "../bindings/GraphView";
import type { NodeKind } from "../bindings/NodeKind";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";
import { edgeLabel } from "./style";

export type Point = { x: number; y: number };

/** A node's box, relative to its parent frame (or to the canvas). */
export type Box = { x: number; y: number; width: number; height: number };

/** An edge's route in canvas coordinates, and where its label goes. */
export type Route = { points: Point[]; label?: Point };

/** Which way the work flows on the canvas. */
export type Direction = "RIGHT" | "DOWN";

export type Layout = {
  direction: Direction;
  nodes: Map<string, Box>;
  edges: Map<string, Route>;
  /** The size of the whole drawing. */
  width: number;
  height: number;
};

/** Fixed sizes of each kind of node; the node components draw at these sizes. */
export const nodeSize: Record<Exclude<NodeKind, "group">, { width: number; height: number }> = {
  agent: { width: 232, height: 96 },
  end: { width: 104, height: 48 },
  wait: { width: 104, height: 48 },
  router: { width: 150, height: 56 },
};

/** Height of a group frame's title bar (the members sit below it). */
export const groupHeader = 44;

/** Space between a group's frame and its members (below its title bar). The canvas
 * draws a frame around wherever its members are (editorFlow.ts: `groupFrames`), so
 * the layout pads frames the same way, and the frame it lays out is the one drawn:
 * the routes it makes into and out of a frame meet the frame's handles. */
export const groupPadding = 24;

let elk: Promise<ELK> | null = null;

/** How long ELK's worker may sit idle before it is let go: it is a JavaScript VM of
 * its own (~25–30 MiB of the web process), and a window mostly waits on one crew
 * already laid out. The next layout starts it again, off the page's thread. */
export const WORKER_IDLE_MS = 15_000;
let busy = 0;
let idle: ReturnType<typeof setTimeout> | null = null;

/** The layout engine: in a worker where there are workers, else in the page. */
function layoutEngine(): Promise<ELK> {
  elk ??=
    typeof Worker === "undefined"
      ? import("elkjs/lib/elk.bundled.js").then(({ default: Bundled }) => new Bundled())
      : import("elkjs/lib/elk-api.js").then(({ default: InWorker }) => new InWorker({ workerUrl: elkWorker }));
  return elk;
}

/** Lays `graph` out; once no layout is left going, the worker's idle time starts. */
async function layOut(graph: ElkNode): Promise<ElkNode> {
  if (idle) clearTimeout(idle);
  idle = null;
  busy += 1;
  try {
    return await (await layoutEngine()).layout(graph);
  } finally {
    busy -= 1;
    if (busy === 0 && typeof Worker !== "undefined") idle = setTimeout(letWorkerGo, WORKER_IDLE_MS);
  }
}

function letWorkerGo() {
  idle = null;
  const engine = elk;
  elk = null;
  void engine?.then((running) => running.terminateWorker());
}

const rootOptions = {
  "elk.algorithm": "layered",
  "elk.hierarchyHandling": "INCLUDE_CHILDREN",
  "elk.edgeRouting": "ORTHOGONAL",
  "elk.layered.spacing.nodeNodeBetweenLayers": "48",
  "elk.layered.spacing.edgeNodeBetweenLayers": "16",
  "elk.spacing.nodeNode": "48",
  "elk.spacing.edgeEdge": "16",
  "elk.spacing.edgeNode": "24",
  "elk.spacing.edgeLabel": "4",
  "elk.edgeLabels.inline": "false",
  "elk.layered.edgeLabels.sideSelection": "ALWAYS_UP",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.layered.cycleBreaking.strategy": "MODEL_ORDER",
  "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
  "elk.padding": "[top=32,left=32,bottom=32,right=32]",
  "elk.json.edgeCoords": "ROOT",
};

/** A rough width of a pill label, so ELK leaves room for it. */
export function labelWidth(text: string): number {
  return Math.round([...text].length * 6.8 + 26);
}

/** The sides work comes in and goes out on, per direction. */
const sides: Record<Direction, { in: string; out: string }> = {
  RIGHT: { in: "WEST", out: "EAST" },
  DOWN: { in: "NORTH", out: "SOUTH" },
};

/** Ports in the middle of the in and out sides: where React Flow draws the handles. */
function ports(id: string, width: number, height: number, direction: Direction) {
  const [inAt, outAt] =
    direction === "RIGHT"
      ? [{ x: 0, y: height / 2 }, { x: width, y: height / 2 }]
      : [{ x: width / 2, y: 0 }, { x: width / 2, y: height }];
  return [
    { id: `${id}__in`, ...inAt, width: 0, height: 0, layoutOptions: { "elk.port.side": sides[direction].in } },
    { id: `${id}__out`, ...outAt, width: 0, height: 0, layoutOptions: { "elk.port.side": sides[direction].out } },
  ];
}

function leaf(node: ViewNode, direction: Direction): ElkNode {
  const size = nodeSize[node.kind as Exclude<NodeKind, "group">];
  return {
    id: node.id,
    width: size.width,
    height: size.height,
    ports: ports(node.id, size.width, size.height, direction),
    layoutOptions: { "elk.portConstraints": "FIXED_POS" },
  };
}

/** The nodes in the order the work flows: breadth first from the agent where runs
 * start, then whatever no edge reaches, in the crew's order. ELK keeps this order
 * and breaks cycles against it, so the drawing reads from the entry point on. */
export function flowOrder(view: GraphView): ViewNode[] {
  const byId = new Map(view.nodes.map((n) => [n.id, n]));
  const next = new Map<string, string[]>();
  for (const edge of view.edges) next.set(edge.source, [...(next.get(edge.source) ?? []), edge.target]);
  const order: ViewNode[] = [];
  const seen = new Set<string>();
  const queue = view.nodes.filter((n) => n.entry).map((n) => n.id);
  const visit = (id: string) => {
    const node = byId.get(id);
    if (seen.has(id) || !node) return;
    seen.add(id);
    order.push(node);
    queue.push(...(next.get(id) ?? []));
  };
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) visit(id);
  for (const node of view.nodes) visit(node.id);
  return order;
}

/** How large a layout can be drawn in a box of `aspect` : 1 (bigger is more readable). */
export function fitScale(layout: Pick<Layout, "width" | "height">, aspect: number): number {
  return Math.min(aspect / Math.max(layout.width, 1), 1 / Math.max(layout.height, 1));
}

/** Lays the graph out both left to right and top to bottom and keeps the one that
 * fits a canvas of `aspect` (width : height) at the larger scale — a chain reads
 * best downwards, a fan-out across. Left to right wins unless downwards is clearly
 * (a tenth) larger. If ELK fails on one direction (it refuses some edges into a
 * group's member when going downwards), the other is used. Positions are relative
 * to each node's parent frame. */
export async function layoutGraph(view: GraphView, aspect = 1.4, label: EdgeWords = edgeLabel): Promise<Layout> {
  const attempt = (direction: Direction) => layoutIn(view, direction, label).catch((error: unknown) => error as Error);
  const across = await attempt("RIGHT");
  const down = await attempt("DOWN");
  if (across instanceof Error) {
    if (down instanceof Error) throw across;
    return down;
  }
  if (down instanceof Error) return across;
  return chooseLayout(across, down, aspect);
}

/** Left to right, unless top to bottom fits the canvas at a clearly (10 %) larger scale. */
export function chooseLayout<L extends Pick<Layout, "width" | "height">>(across: L, down: L, aspect: number): L {
  return fitScale(down, aspect) > fitScale(across, aspect) * 1.1 ? down : across;
}

/** The words on an edge's pill (ELK leaves room for them). */
export type EdgeWords = (edge: ViewEdge) => string;

/** Lays the graph out in one direction. */
export async function layoutIn(view: GraphView, direction: Direction, label: EdgeWords = edgeLabel): Promise<Layout> {
  const byParent = new Map<string | null, ViewNode[]>();
  for (const node of flowOrder(view)) {
    const parent = node.parent && view.nodes.some((n) => n.id === node.parent) ? node.parent : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), node]);
  }
  const build = (node: ViewNode): ElkNode => {
    if (node.kind !== "group") return leaf(node, direction);
    return {
      id: node.id,
      children: (byParent.get(node.id) ?? []).map(build),
      // A group's ports sit on its sides wherever ELK sizes it (ELK puts them where
      // it likes along the side; `snapToMiddle` moves the routes' ends to the middle,
      // where the frame's handles are).
      ports: [
        { id: `${node.id}__in`, width: 0, height: 0, layoutOptions: { "elk.port.side": sides[direction].in } },
        { id: `${node.id}__out`, width: 0, height: 0, layoutOptions: { "elk.port.side": sides[direction].out } },
      ],
      layoutOptions: {
        "elk.padding": `[top=${groupHeader + groupPadding},left=${groupPadding},bottom=${groupPadding},right=${groupPadding}]`,
        "elk.portConstraints": "FIXED_SIDE",
        "elk.nodeSize.constraints": "MINIMUM_SIZE",
        "elk.nodeSize.minimum": "(240,120)",
      },
    };
  };
  const edges: ElkExtendedEdge[] = view.edges.map((edge) => {
    const text = label(edge);
    return {
      id: edge.id,
      sources: [`${edge.source}__out`],
      targets: [`${edge.target}__in`],
      labels: [{ id: `${edge.id}__label`, text, width: labelWidth(text), height: 22 }],
    };
  });
  const graph: ElkNode = {
    id: "root",
    layoutOptions: { ...rootOptions, "elk.direction": direction },
    children: (byParent.get(null) ?? []).map(build),
    edges,
  };
  const laid = await layOut(graph);

  const nodes = new Map<string, Box>();
  const walk = (node: ElkNode) => {
    for (const child of node.children ?? []) {
      nodes.set(child.id, { x: child.x ?? 0, y: child.y ?? 0, width: child.width ?? 0, height: child.height ?? 0 });
      walk(child);
    }
  };
  walk(laid);

  const routes = new Map<string, Route>();
  const kinds = new Map(view.nodes.map((n) => [n.id, n.kind]));
  const frame = (id: string) => absoluteBox(view, { direction, nodes, edges: routes, width: 0, height: 0 }, id);
  for (const edge of laid.edges ?? []) {
    const section = edge.sections?.[0];
    if (!section) continue;
    const label = edge.labels?.[0];
    const original = view.edges.find((e) => e.id === edge.id);
    let points = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
    const from = original && kinds.get(original.source) === "group" ? frame(original.source) : undefined;
    const to = original && kinds.get(original.target) === "group" ? frame(original.target) : undefined;
    if (from) points = snapToMiddle(points, from, direction, "start");
    if (to) points = snapToMiddle(points, to, direction, "end");
    routes.set(edge.id, {
      points,
      label:
        label && label.x !== undefined && label.y !== undefined
          ? { x: label.x + (label.width ?? 0) / 2, y: label.y + (label.height ?? 0) / 2 }
          : undefined,
    });
  }
  return { direction, nodes, edges: routes, width: laid.width ?? 0, height: laid.height ?? 0 };
}

/** A route whose `end` is on a side of `box` moved to the middle of that side (the
 * out side at the start, the in side at the end), its first or last segment shifted
 * with it so the route stays orthogonal. */
export function snapToMiddle(points: Point[], box: Box, direction: Direction, end: "start" | "end"): Point[] {
  const route = end === "start" ? [...points] : [...points].reverse();
  const across = direction === "RIGHT"; // the end's segment runs along x
  const side = end === "start" ? "out" : "in";
  const middle =
    direction === "RIGHT"
      ? { x: side === "out" ? box.x + box.width : box.x, y: box.y + box.height / 2 }
      : { x: box.x + box.width / 2, y: side === "out" ? box.y + box.height : box.y };
  const [first, second] = route;
  if (!first || !second) return points;
  if (route.length === 2) {
    // A straight route: bend halfway to keep it orthogonal.
    const bend = across
      ? [
          { x: (middle.x + second.x) / 2, y: middle.y },
          { x: (middle.x + second.x) / 2, y: second.y },
        ]
      : [
          { x: middle.x, y: (middle.y + second.y) / 2 },
          { x: second.x, y: (middle.y + second.y) / 2 },
        ];
    route.splice(0, 1, middle, ...bend);
  } else {
    route[0] = middle;
    route[1] = across ? { x: second.x, y: middle.y } : { x: middle.x, y: second.y };
  }
  return end === "start" ? route : route.reverse();
}

/** A node's box in canvas coordinates (adding its parent frames' offsets). */
export function absoluteBox(view: GraphView, layout: Layout, id: string): Box | undefined {
  const box = layout.nodes.get(id);
  if (!box) return undefined;
  const node = view.nodes.find((n) => n.id === id);
  const parent = node?.parent ? absoluteBox(view, layout, node.parent) : undefined;
  return parent ? { ...box, x: box.x + parent.x, y: box.y + parent.y } : box;
}
