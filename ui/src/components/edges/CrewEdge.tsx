// Every edge of the crew graph: the line in its behaviour's colour (dashed for
// fallbacks), an arrow, and a pill with the signal ("asks a question · [QUESTION]",
// a line signal as its agent writes it) or a word ("otherwise"). The line follows
// its drawn route (graph/arrows.ts: the layout's own, or one around the cards) and
// the pill sits where that put it; while a card at either end is being dragged the
// line is a curve until it is dropped. A right-click on the line or the pill opens
// the arrow's menu.
import { BaseEdge, EdgeLabelRenderer, type EdgeProps, getBezierPath } from "@xyflow/react";
import { useContext } from "react";
import { midpoint, near, roundedPath } from "../../graph/path";
import type { CrewEdge } from "../../graph/toFlow";
import { ProblemBadge } from "../ProblemBadge";
import { unknownNode } from "../../graph/refs";
import { useEdgeRunInfo } from "../run/useRunGraph";
import { heatStroke } from "../../run/coverage";
import { useArrowHeat } from "../../run/coverageStore";
import { partStroke, useArrowPart } from "../../run/partingStore";
import { MenuContext } from "../editor/menuTarget";
import { SelectionContext } from "../selection";

export function CrewEdgeView(props: EdgeProps<CrewEdge>) {
  const { id, data, markerEnd, selected, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition } = props;
  const select = useContext(SelectionContext);
  const openMenu = useContext(MenuContext);
  const run = useEdgeRunInfo(data?.source ?? unknownNode, data?.target ?? unknownNode);
  // While the Test tab is open: painted by how often the test's runs took it.
  const heat = useArrowHeat(data?.view.id);
  // A fork shown: where it parts from its first run (the first run's arrow faint, its own highlighted).
  const part = useArrowPart(data?.view.id);
  if (!data) return null;
  const route = data.route;
  let path: string;
  let label: { x: number; y: number };
  if (route && near(route.points[0], sourceX, sourceY) && near(route.points[route.points.length - 1], targetX, targetY)) {
    const points = [{ x: sourceX, y: sourceY }, ...route.points.slice(1, -1), { x: targetX, y: targetY }];
    path = roundedPath(points);
    label = route.label ?? midpoint(points);
  } else {
    const [bezier, x, y] = getBezierPath({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition });
    path = bezier;
    label = { x, y };
  }
  const badge = data.badge;
  return (
    <>
      <BaseEdge
        className={part ? `fork-${part}` : undefined}
        id={id}
        path={path}
        markerEnd={markerEnd}
        interactionWidth={16}
        style={
          heat
            ? heatStroke(heat, selected ?? false)
            : { stroke: data.color, strokeWidth: selected ? 3 : 1.8, strokeDasharray: data.dashed ? "6 5" : undefined, ...partStroke(part) }
        }
      />
      <EdgeLabelRenderer>
        <button
          type="button"
          className={`edge-pill nodrag nopan${selected ? " selected" : ""}${badge ? ` has-${badge.severity}` : ""}${data.dashed ? " quiet" : ""}${run.pulse ? " run-pulse" : ""}${heat ? ` coverage-${heat}` : ""}${part ? ` fork-${part}` : ""}`}
          style={{
            transform: `translate(-50%, -50%) translate(${label.x}px, ${label.y}px)`,
            borderColor: badge?.severity === "error" ? undefined : data.color,
            color: data.color,
          }}
          data-edge={id}
          title={data.view.signal ? `Signal ${data.view.signal}` : data.label}
          onClick={() => select(id)}
          onContextMenu={(event) => {
            event.preventDefault();
            select(id);
            openMenu({ kind: "edge", id }, { x: event.clientX, y: event.clientY });
          }}
        >
          <span className="edge-pill-text">{data.label}</span>
          {badge && <ProblemBadge badge={badge} small />}
          {run.count > 0 && (
            <span key={run.count} className={`run-count${run.pulse ? " run-pulse" : ""}`} title={`Taken ${run.count} time${run.count === 1 ? "" : "s"} in this run`}>
              {run.count}
            </span>
          )}
        </button>
      </EdgeLabelRenderer>
    </>
  );
}
