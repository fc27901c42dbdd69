// What a right-click menu of the canvas is about — the canvas itself (at a point),
// a node (a card, a group frame, End or Wait) or an arrow — and the context through
// which the parts of the canvas (an arrow's pill) open one.
import { createContext } from "react";

export type MenuTarget = { kind: "canvas" } | { kind: "node"; id: string } | { kind: "edge"; id: string };

/** Opens the menu of `target` at `at` (window coordinates). */
export type OpenMenu = (target: MenuTarget, at: { x: number; y: number }) => void;

export const MenuContext = createContext<OpenMenu>(() => {});
