// Every node's two handles: where work comes in and where it goes out, on the
// sides the layout's direction puts them (ELK routes edges to the same points).
import { Handle, Position } from "@xyflow/react";
import type { Direction } from "../../graph/layout";

export function InHandle({ direction }: { direction: Direction }) {
  return <Handle type="target" position={direction === "DOWN" ? Position.Top : Position.Left} id="in" />;
}

export function OutHandle({ direction }: { direction: Direction }) {
  return <Handle type="source" position={direction === "DOWN" ? Position.Bottom : Position.Right} id="out" />;
}
