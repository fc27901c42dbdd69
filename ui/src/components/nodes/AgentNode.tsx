// An agent as a card: avatar, name, role underneath, model as a small tag (UX.md);
// where a reply without a signal goes when no arrow says so ("No signal → Student
// (automatic)"), a mark on an agent added while the app runs, and while a run goes
// on the tool it is using (or waiting for the person to allow); after a reply that
// came close to a signal without matching, what it wrote and a fix (NearMissNote).
// Once the run is over, a click on the card shows what the agent saw at its latest
// turn (components/run/seenFromCard.ts). A run that pauses before it marks it (PauseMark).
import type { NodeProps } from "@xyflow/react";
import { type CrewNode, refOfNode } from "../../graph/toFlow";
import { InHandle, OutHandle } from "./handles";
import { NearMissNote } from "./NearMissNote";
import { PauseMark } from "./PauseMark";
import { avatarColor, avatarLetter } from "../../graph/style";
import type { ModelView } from "../../bindings/ModelView";
import { useModels } from "../../models/store";
import { defaultModel } from "../../models/warnings";
import { FlagIcon } from "../icons";
import { ProblemBadge } from "../ProblemBadge";
import { useShallow } from "zustand/react/shallow";
import { toolAtWork } from "../../run/reducer";
import { useRun } from "../../run/store";
import { useNodeRunClass } from "../run/useRunGraph";
import { useSeenFromCard } from "../run/seenFromCard";

/** The card's model tag: the model it names, and for the default model which one
 * that is now ("default · fast"), so adding a model that became the default shows. */
export function modelTag(model: string | null | undefined, models: readonly ModelView[] | null): string {
  const named = model?.trim();
  if (named && named !== "default") return named;
  const chosen = models ? defaultModel(models) : undefined;
  return chosen ? `default · ${chosen.name}` : "default";
}

export function AgentNode({ data, selected }: NodeProps<CrewNode>) {
  const { view, badge, card } = data;
  const models = useModels();
  const run = useNodeRunClass(refOfNode(data));
  const tool = useRun(useShallow((s) => toolAtWork(s.graph, view.agent ?? undefined)));
  const showSeen = useSeenFromCard(view.agent);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: after a run a double click shows what the agent saw; keyboards have the card's menu (Shift+F10) and the transcript's button
    <div
      className={`agent-card${selected ? " selected" : ""}${badge ? ` has-${badge.severity}` : ""}${card?.runtime ? " runtime" : ""}${run ? ` ${run}` : ""}`}
      data-agent={view.agent ?? undefined}
      title={view.description ?? undefined}
      onDoubleClick={showSeen}
    >
      <InHandle direction={data.direction} />
      <div className="agent-main">
        <div className="avatar" style={{ background: avatarColor(view.agent ?? view.id) }} aria-hidden>
          {avatarLetter(view.label)}
        </div>
        <div className="agent-text">
          <div className="agent-name">{view.label}</div>
          {view.role && <div className="agent-role">{view.role}</div>}
          <div className="agent-tags">
            {card?.runtime && (
              <span className="runtime-tag" title="Added while the app runs (crewgraph agents add, or the API): it is not in the crew's file">
                added while running
              </span>
            )}
            <span className="model-tag" title="The model this agent uses">
              {modelTag(view.model, models)}
            </span>
            {view.entry && (
              <span className="start-tag" title="Runs start with this agent">
                starts here
              </span>
            )}
            {view.terminal && (
              <span className="end-tag" title="When this agent is done, the run is finished">
                <FlagIcon size={11} /> finishes
              </span>
            )}
          </div>
        </div>
      </div>
      {card?.fallback && (
        <div
          className="agent-fallback"
          title={`When ${view.label}'s reply has no signal, the work goes to ${card.fallback}: the next agent of the crew, chosen automatically. Draw an "otherwise" arrow to choose another.`}
        >
          No signal → {card.fallback} (automatic)
        </div>
      )}
      {tool && (
        <div className={`agent-tool${tool.waiting ? " waiting" : ""}`} role="status">
          {tool.waiting ? `Waits for you to allow ${tool.name}` : `Using ${tool.name}…`}
        </div>
      )}
      {!tool && <NearMissNote agent={view.agent ?? null} name={view.label} />}
      <PauseMark agent={view.agent} name={view.label} />
      {badge && <ProblemBadge badge={badge} />}
      <OutHandle direction={data.direction} />
    </div>
  );
}
