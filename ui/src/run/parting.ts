// Where a forked run parts from the run it was forked from (issue 18, item 3): both
// runs are the same up to the reply replaced (the fork gives the first run's turns
// again, event for event), so they part at the move that followed that reply. The
// first run's move there is drawn faint and dashed on the canvas, the fork's
// highlighted, with a legend (ForkLegend.tsx). Computed from the two runs' events;
// pure: partingStore.ts keeps what the canvas shows.
//
//   const parting = whereRunsPart(parentEvents, forkEvents, 9);
//   parting?.agent;                                  // "student": whose reply was replaced
//   const { parted, taken } = partingArrows(parting, arrowsOf(graph));
import type { Arrow } from "../graph/refs";
import type { RunEvent } from "../bindings/RunEvent";
import { edgeForHandoff } from "../components/run/runClasses";
import { fromEvents, type Handoff, type RunView } from "./reducer";

/** Where two runs part: whose reply, and the moves each run made after it. */
export type Parting = {
  /** The agent whose reply the fork replaced. */
  agent: string;
  /** The seq of that reply in the first run. */
  at: number;
  /** The first run's moves after the reply (what the fork did not do). */
  first: Handoff[];
  /** The fork's moves after its reply (empty while it has not moved on yet). */
  fork: Handoff[];
};

/** Where the fork (`fork`'s events) parts from the first run (`first`'s), forked at
 * the first run's reply `at`; null when `at` is no reply of it. */
export function whereRunsPart(first: readonly RunEvent[], fork: readonly RunEvent[], at: number): Parting | null {
  const reply = first.find((e) => e.seq === at);
  if (reply?.type !== "agent_response") return null;
  const agent = reply.agent;
  // The fork's reply in its place: the same agent's reply of the same rank (the
  // replayed part is the first run's, so its seq is the same too).
  const rank = replies(first, agent).findIndex((e) => e.seq === at);
  const forkReply = replies(fork, agent)[rank];
  return {
    agent,
    at,
    first: movesAfter(fromEvents(first), agent, at),
    fork: forkReply ? movesAfter(fromEvents(fork), agent, forkReply.seq) : [],
  };
}

/** The arrows of the graph where the runs part: the first run's (`parted`: faint,
 * dashed) and the fork's (`taken`: highlighted) — each only when the other run did
 * not take it too (a fork whose new reply went the same way parts nowhere). */
export function partingArrows(parting: Parting | null, arrows: readonly Arrow[]): { parted: string[]; taken: string[] } {
  if (!parting) return { parted: [], taken: [] };
  const ids = (moves: Handoff[]) => [...new Set(moves.map((move) => edgeForHandoff(move, arrows)).filter((id): id is string => id !== null))];
  const first = ids(parting.first);
  const fork = ids(parting.fork);
  return { parted: first.filter((id) => !fork.includes(id)), taken: fork.filter((id) => !first.includes(id)) };
}

/** The agent's replies, in order. */
function replies(events: readonly RunEvent[], agent: string): RunEvent[] {
  return events.filter((e) => e.type === "agent_response" && e.agent === agent);
}

/** The moves that followed the agent's reply at `seq` (those its turn led to). */
function movesAfter(view: RunView, agent: string, seq: number): Handoff[] {
  const turn = view.turns.filter((t) => t.agent === agent && t.id < seq).at(-1);
  return turn ? view.handoffs.filter((move) => move.turn === turn.id) : [];
}
