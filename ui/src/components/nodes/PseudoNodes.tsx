// The End node (a flag), the Wait node (an hourglass: "waits for you") and the
// Router node of the llm / gatekeeper strategies.
import { Handle, type NodeProps, Position } from "@xyflow/react";
import type { CrewNode } from "../../graph/toFlow";
import { FlagIcon, HourglassIcon, RouterIcon } from "../icons";

export function EndNode({ selected }: NodeProps<CrewNode>) {
  return (
    <div className={`pseudo-node end-node${selected ? " selected" : ""}`} title="The run ends here">
      <Handle type="target" position={Position.Left} id="in" isConnectable={false} />
      <FlagIcon size={16} />
      <span>End</span>
    </div>
  );
}

export function WaitNode({ selected }: NodeProps<CrewNode>) {
  return (
    <div className={`pseudo-node wait-node${selected ? " selected" : ""}`} title="The crew waits for you here">
      <Handle type="target" position={Position.Left} id="in" isConnectable={false} />
      <HourglassIcon size={16} />
      <span>Wait</span>
      <Handle type="source" position={Position.Right} id="out" isConnectable={false} />
    </div>
  );
}

export function RouterNode({ data, selected }: NodeProps<CrewNode>) {
  return (
    <div className={`pseudo-node router-node${selected ? " selected" : ""}`} title="Decides which agent works next">
      <Handle type="target" position={Position.Left} id="in" isConnectable={false} />
      <RouterIcon size={16} />
      <span>{data.view.label}</span>
      <Handle type="source" position={Position.Right} id="out" isConnectable={false} />
    </div>
  );
}
