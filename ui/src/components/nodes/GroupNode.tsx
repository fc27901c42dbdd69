// A parallel group as a tinted frame around its members, with its timeout shown.
import type { NodeProps } from "@xyflow/react";
import { type CrewNode, refOfNode } from "../../graph/toFlow";
import { InHandle, OutHandle } from "./handles";
import { formatDuration } from "../../graph/style";
import { GroupIcon } from "../icons";
import { ProblemBadge } from "../ProblemBadge";
import { useGroupRunWords, useNodeRunClass } from "../run/useRunGraph";

export function GroupNode({ data, selected }: NodeProps<CrewNode>) {
  const { view, badge } = data;
  const group = view.group;
  const run = useNodeRunClass(refOfNode(data));
  const progress = useGroupRunWords(data.group, group?.timeout_ms ?? null);
  return (
    <div className={`group-frame${selected ? " selected" : ""}${badge ? ` has-${badge.severity}` : ""}${run ? ` ${run}` : ""}`} data-group={view.label}>
      <InHandle direction={data.direction} />
      <div className="group-header">
        <GroupIcon size={14} />
        <span className="group-name">{view.label}</span>
        {badge ? <ProblemBadge badge={badge} small /> : <span />}
        {group && (
          <span className="group-meta">
            side by side · {formatDuration(group.timeout_ms)} · {group.wait_for_all ? "waits for all" : "goes on at the timeout"}
          </span>
        )}
        {progress && <span className="run-group-progress">{progress}</span>}
      </div>
      <OutHandle direction={data.direction} />
    </div>
  );
}
