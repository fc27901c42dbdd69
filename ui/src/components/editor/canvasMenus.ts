// What each right-click menu of the canvas offers (UX.md: "right-click menus"), in
// the words of the toolbar and the shortcuts list: the canvas (add an agent there,
// paste, tidy up, fit), an agent's card (edit, try it, what it saw in the run
// shown, pause runs before it or not — run/breakpoints.ts —, connect it, duplicate,
// delete), a group frame, End and Wait, and an arrow (edit, re-point, delete). The
// editor supplies what each item does.
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { GraphView } from "../../bindings/GraphView";
import { edgeToEdit, repointKind } from "../../editor/edges";
import { arrowOf, graphRefs, inSelection } from "../../graph/refs";
import type { MenuItem } from "./ContextMenu";
import type { MenuTarget } from "./menuTarget";
import { latestSeenTurn, openLatestSeen } from "../run/seenFromCard";
import { editorStore } from "../../editor/store";
import { pausesBefore, toggleBreakpoint } from "../../run/breakpoints";

/** What the menus' items do (the editor's own actions). */
export type MenuActions = {
  addHere: () => void;
  paste: () => void;
  canPaste: boolean;
  tidy: () => void;
  fit: () => void;
  /** Selects a node or arrow and puts the inspector's first field in focus. */
  edit: (id: string) => void;
  tryAgent: (agent: string) => void;
  connectFrom: (agent: string) => void;
  duplicate: (agent: string) => void;
  remove: (id: string) => void;
  repoint: (edgeId: string) => void;
};

/** The menu of `target`: its words for screen readers and its items. */
export function menuFor(target: MenuTarget, spec: CrewSpec, graph: GraphView, act: MenuActions): { label: string; items: MenuItem[] } {
  const canvas: MenuItem[] = [
    { label: "Add agent here", keys: "A", onSelect: act.addHere },
    { label: "Paste", keys: "Ctrl+V", disabled: !act.canPaste, hint: act.canPaste ? undefined : "Copy an agent first (Ctrl+C)", onSelect: act.paste },
    { label: "Tidy up", keys: "L", hint: "Lay the graph out automatically", onSelect: act.tidy },
    { label: "Fit", keys: "F", hint: "Fit the whole crew on screen", onSelect: act.fit },
  ];
  if (target.kind === "canvas") return { label: "Canvas", items: canvas };

  if (target.kind === "edge") {
    const edge = graph.edges.find((e) => e.id === target.id);
    if (!edge) return { label: "Arrow", items: [] };
    const arrow = arrowOf(edge, graphRefs(graph));
    const name = (id: string) => graph.nodes.find((n) => n.id === id)?.label ?? id;
    const where = repointKind(arrow);
    const items: MenuItem[] = [{ label: "Edit", hint: "Show this arrow in the panel on the right", onSelect: () => act.edit(edge.id) }];
    if (where) items.push({ label: where === "group" ? "Re-point to another group…" : "Re-point to another agent…", onSelect: () => act.repoint(edge.id) });
    if (edgeToEdit(arrow)) items.push({ label: "Delete", keys: "Del", danger: true, onSelect: () => act.remove(edge.id) });
    return { label: `Arrow from ${name(edge.source)} to ${name(edge.target)}`, items };
  }

  const node = graph.nodes.find((n) => n.id === target.id);
  if (!node) return { label: "Canvas", items: canvas };
  const { agents, groups } = inSelection(spec, [node.id]);
  if (node.kind === "agent" && node.agent) {
    const agent = node.agent;
    const own = agents.length > 0;
    const items: MenuItem[] = [
      { label: "Edit", hint: "Open this agent's form in the panel on the right", onSelect: () => act.edit(node.id) },
      { label: "Try this agent", hint: "A short chat with this agent alone, before running the whole crew", onSelect: () => act.tryAgent(agent) },
    ];
    if (latestSeenTurn(agent)) items.push({ label: `What ${node.label} saw`, hint: "Its latest turn in the run: its instructions, the messages it was shown, what it cost", onSelect: () => openLatestSeen(agent) });
    items.push(pauseItem(agent, node.label));
    if (own) {
      items.push(
        { label: "Connect to…", hint: "Choose where this agent's work can go, and on which signal", onSelect: () => act.connectFrom(agent) },
        { label: "Duplicate", onSelect: () => act.duplicate(agent) },
        { label: "Delete", keys: "Del", danger: true, onSelect: () => act.remove(node.id) },
      );
    }
    return { label: `Agent ${node.label}`, items };
  }
  if (node.kind === "group" && groups.length > 0) {
    return {
      label: `Group ${node.label}`,
      items: [
        { label: "Edit", hint: "Open this group's settings in the panel on the right", onSelect: () => act.edit(node.id) },
        { label: "Delete group", hint: "The group goes; its agents stay", danger: true, onSelect: () => act.remove(node.id) },
      ],
    };
  }
  return { label: node.label, items: [{ label: "What is this?", onSelect: () => act.edit(node.id) }, ...canvas.slice(2)] };
}

/** "Pause before Student" / "Don't pause before Student": the crew open's runs
 * (a run paused now, from its next resume) pause before the agent's turns, or not. */
function pauseItem(agent: string, name: string): MenuItem {
  const crew = editorStore.getState().path;
  if (!crew) return { label: `Pause before ${name}`, disabled: true, hint: "Save the crew first: a run uses the saved file", onSelect: () => {} };
  const pausing = pausesBefore(crew, agent);
  return {
    label: `${pausing ? "Don't pause" : "Pause"} before ${name}`,
    hint: pausing ? `Runs go on through ${name}'s turns` : `Runs stop before each of ${name}'s turns: you see what it is about to be given, and go on when you are ready`,
    onSelect: () => toggleBreakpoint(crew, agent),
  };
}
