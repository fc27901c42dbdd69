// The End node (a flag), the Wait node (an hourglass: "waits for you") and the
// Router node of the llm / gatekeeper strategies.
import type { NodeProps } from "@xyflow/react";
import { type CrewNode, refOfNode } from "../../graph/toFlow";
import { InHandle, OutHandle } from "./handles";
import { FlagIcon, HourglassIcon, RouterIcon } from "../icons";
import { ProblemBadge } from "../ProblemBadge";
import { useEndWords, useNodeRunClass } from "../run/useRunGraph";

export function EndNode({ data, selected }: NodeProps<CrewNode>) {
  const run = useNodeRunClass(refOfNode(data));
  const words = useEndWords();
  return (
    <div className={`pseudo-node end-node${selected ? " selected" : ""}${run ? ` ${run}` : ""}`} title="The run ends here" data-run-words={words ?? undefined}>
      <InHandle direction={data.direction} />
      <FlagIcon size={16} />
      <span>End</span>
    </div>
  );
}

export function WaitNode({ data, selected }: NodeProps<CrewNode>) {
  const run = useNodeRunClass(refOfNode(data));
  return (
    <div className={`pseudo-node wait-node${selected ? " selected" : ""}${run ? ` ${run}` : ""}`} title="The crew waits for you here">
      <InHandle direction={data.direction} />
      <HourglassIcon size={16} />
      <span>Wait</span>
      <OutHandle direction={data.direction} />
    </div>
  );
}

export function RouterNode({ data, selected }: NodeProps<CrewNode>) {
  const { badge } = data;
  return (
    <div className={`pseudo-node router-node${selected ? " selected" : ""}${badge ? ` has-${badge.severity}` : ""}`} title="Decides which agent works next">
      <InHandle direction={data.direction} />
      <RouterIcon size={16} />
      <span>{data.view.label}</span>
      {badge && <ProblemBadge badge={badge} small />}
      <OutHandle direction={data.direction} />
    </div>
  );
}
