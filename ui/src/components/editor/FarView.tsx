// The crew drawn on one <canvas> when the view is zoomed far out: cards as
// coloured blocks, arrows as thin lines. At that size nothing on a card is
// readable, and painting a thousand cards and three thousand arrows as page
// elements on every frame of a pan is what makes a big crew stutter. The crew is
// painted once into a picture at about the current zoom (again only when the crew
// changes or the zoom moves past a step of √2), which a pan or zoom only moves and
// scales with CSS, as React Flow moves its own viewport. The page elements stay, so
// selection and editing are unchanged when the person zooms back in.
import { useStore } from "@xyflow/react";
import { useEffect, useMemo, useRef } from "react";
import type { CrewEdge, CrewNode } from "../../graph/toFlow";
import { avatarColor } from "../../graph/style";

type Props = { nodes: CrewNode[]; edges: CrewEdge[] };

/** The largest picture (pixels a side): past it the picture is painted smaller and
 * scaled up, which at this distance nobody sees. */
const maxPicture = 4096;

type Picture = { image: HTMLCanvasElement; scale: number; left: number; top: number };

export function FarView({ nodes, edges }: Props) {
  const holder = useRef<HTMLDivElement>(null);
  const [x, y, zoom] = useStore((s) => s.transform);
  const ratio = typeof window !== "undefined" ? window.devicePixelRatio || 1 : 1;
  // The zoom step the picture is painted at: it changes only every factor of √2.
  const step = Math.SQRT2 ** Math.ceil(Math.log(zoom * ratio) / Math.log(Math.SQRT2));
  const picture = useMemo(() => paintPicture(nodes, edges, step), [nodes, edges, step]);

  // The picture is a page element moved and scaled by CSS, like React Flow's own
  // viewport: a pan repaints nothing.
  useEffect(() => {
    const box = holder.current;
    if (!box || !picture) return;
    box.replaceChildren(picture.image);
    picture.image.style.transformOrigin = "0 0";
  }, [picture]);
  useEffect(() => {
    if (!picture) return;
    const factor = zoom / picture.scale;
    picture.image.style.transform = `translate(${x + picture.left * zoom}px, ${y + picture.top * zoom}px) scale(${factor})`;
  }, [picture, x, y, zoom]);

  return <div ref={holder} className="far-view" aria-hidden />;
}

/** The crew painted off screen at `scale` pixels per canvas unit (null: too big). */
function paintPicture(nodes: CrewNode[], edges: CrewEdge[], scale: number): Picture | null {
  if (nodes.length === 0 || typeof document === "undefined") return null;
  const left = Math.min(...nodes.map((n) => n.position.x)) - 8;
  const top = Math.min(...nodes.map((n) => n.position.y)) - 8;
  const right = Math.max(...nodes.map((n) => n.position.x + (n.width ?? 0))) + 8;
  const bottom = Math.max(...nodes.map((n) => n.position.y + (n.height ?? 0))) + 8;
  scale = Math.min(scale, maxPicture / (right - left), maxPicture / (bottom - top));
  const w = Math.max(1, Math.ceil((right - left) * scale));
  const h = Math.max(1, Math.ceil((bottom - top) * scale));
  const image = document.createElement("canvas");
  image.width = w;
  image.height = h;
  const context = image.getContext("2d");
  if (!context) return null;
  context.setTransform(scale, 0, 0, scale, -left * scale, -top * scale);
  paint(context, nodes, edges, scale);
  return { image, scale, left, top };
}

/** Paints the crew in canvas units; `scale` is how many pixels one unit is. */
function paint(context: CanvasRenderingContext2D, nodes: CrewNode[], edges: CrewEdge[], scale: number) {
  const { panel, border, group, accent } = colours();
  const zoom = scale;
// One path per colour: a few strokes and fills per frame, not thousands.
  const boxes = new Map(nodes.map((n) => [n.id, n]));
  const byColour = <T,>(items: T[], colour: (item: T) => string) => {
    const groups = new Map<string, T[]>();
    for (const item of items) {
      const key = colour(item);
      const list = groups.get(key);
      if (list) list.push(item);
      else groups.set(key, [item]);
    }
    return groups;
  };
  const frames = nodes.filter((n) => n.type === "group");
  const cards = nodes.filter((n) => n.type !== "group");
  context.fillStyle = group;
  context.beginPath();
  for (const node of frames) context.rect(node.position.x, node.position.y, node.width ?? 0, node.height ?? 0);
  context.fill();

  context.globalAlpha = 0.55;
  context.lineWidth = 1 / zoom;
  for (const [colour, list] of byColour(edges, (e) => e.data?.color ?? border)) {
    context.strokeStyle = colour;
    context.beginPath();
    for (const edge of list) {
      const from = boxes.get(edge.source);
      const to = boxes.get(edge.target);
      if (!from || !to) continue;
      context.moveTo(from.position.x + (from.width ?? 0), from.position.y + (from.height ?? 0) / 2);
      context.lineTo(to.position.x, to.position.y + (to.height ?? 0) / 2);
    }
    context.stroke();
  }
  context.globalAlpha = 1;

  context.fillStyle = panel;
  context.strokeStyle = border;
  context.beginPath();
  for (const node of cards) context.rect(node.position.x, node.position.y, node.width ?? 0, node.height ?? 0);
  context.fill();
  context.stroke();
  for (const [colour, list] of byColour(cards, (n) => (n.type === "agent" ? avatarColor(n.data.view.agent ?? n.id) : border))) {
    context.fillStyle = colour;
    context.beginPath();
    for (const node of list) context.rect(node.position.x, node.position.y, Math.min(node.width ?? 0, 44), node.height ?? 0);
    context.fill();
  }
  const selected = cards.filter((n) => n.selected);
  if (selected.length) {
    context.strokeStyle = accent;
    context.lineWidth = 3 / zoom;
    context.beginPath();
    for (const node of selected) context.rect(node.position.x, node.position.y, node.width ?? 0, node.height ?? 0);
    context.stroke();
  }
}

/** The theme's colours, read once per theme (reading styles every frame costs). */
let cached: { theme: string | undefined; colours: { panel: string; border: string; group: string; accent: string } } | null = null;
function colours() {
  const theme = document.documentElement.dataset.theme;
  if (cached && cached.theme === theme) return cached.colours;
  const styles = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => styles.getPropertyValue(name).trim() || fallback;
  const value = {
    panel: read("--panel", "#fff"),
    border: read("--border", "#ccc"),
    group: read("--group-bg", "rgba(124,58,237,0.06)"),
    accent: read("--accent", "#4f46e5"),
  };
  cached = { theme, colours: value };
  return value;
}
