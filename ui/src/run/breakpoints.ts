// Stepping through a run (issue 18, item 6): which agents a run of each crew pauses
// before, chosen on their cards (the card's menu) and kept here per crew — in the
// window only, never in the crew's file — and what is sent for them: `breakpoints`
// when a run starts, and on resume the set when the person changed it while the run
// was paused, with the three ways on from such a pause (one turn, continue, continue
// without pausing). A run shown live that says its set (`breakpoints_set`: one
// started elsewhere, or opened again after a restart) makes it the crew's, so the
// cards show what the run will do. Also here: the latest messages of the run, as
// the panel shows what the agent is about to be given.
//
//   toggleBreakpoint(crewPath, "student");
//   startRun({ crew: crewPath, input, breakpoints: startBreakpoints(crewPath) });
//   resumeRun(id, goOnRequest("step", words, chosenBreakpoints(crewPath), view.breakpoints));
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { ResumeRun } from "../bindings/ResumeRun";
import type { RunView } from "./reducer";
import { runStore } from "./store";

type BreakpointState = {
  /** Crew path → the ids of the agents its runs pause before, in the order chosen. */
  byCrew: Record<string, string[]>;
};

export const breakpointStore = createStore<BreakpointState>()(() => ({ byCrew: {} }));

const NONE: string[] = [];

/** The agents a run of `crew` pauses before (none for a crew never saved). */
export function chosenBreakpoints(crew: string | null): string[] {
  return (crew && breakpointStore.getState().byCrew[crew]) || NONE;
}

/** Sets the agents a run of `crew` pauses before. */
export function setBreakpoints(crew: string, agents: readonly string[]): void {
  const byCrew = { ...breakpointStore.getState().byCrew };
  if (agents.length === 0) delete byCrew[crew];
  else byCrew[crew] = [...agents];
  breakpointStore.setState({ byCrew });
}

/** Pauses before `agent` from now on, or no more when it did. */
export function toggleBreakpoint(crew: string, agent: string): void {
  const now = chosenBreakpoints(crew);
  setBreakpoints(crew, now.includes(agent) ? now.filter((a) => a !== agent) : [...now, agent]);
}

/** Whether a run of `crew` pauses before `agent`. */
export function pausesBefore(crew: string | null, agent: string): boolean {
  return chosenBreakpoints(crew).includes(agent);
}

/** The same, for a component (a card's mark). */
export function usePausesBefore(crew: string | null, agent: string | null | undefined): boolean {
  return useStore(breakpointStore, (s) => Boolean(crew && agent && s.byCrew[crew]?.includes(agent)));
}

/** What a new run of `crew` is started with (left out when none are chosen). */
export function startBreakpoints(crew: string | null): string[] | undefined {
  const chosen = chosenBreakpoints(crew);
  return chosen.length > 0 ? [...chosen] : undefined;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** What a resume sends of the breakpoints: the chosen set when it is not the run's
 * (the person changed it while the run was paused); left out otherwise. */
export function resumeBreakpoints(chosen: readonly string[], running: readonly string[]): string[] | undefined {
  return sameSet(chosen, running) ? undefined : [...chosen];
}

/** The three ways on from a pause before an agent's turn. */
export type GoOn = "step" | "continue" | "no_pauses";

/** The resume request for a way on: the person's words for the agent (when any),
 * one turn only for `step`, and the breakpoints — none for `no_pauses`, else the
 * chosen ones when they changed. */
export function goOnRequest(how: GoOn, words: string, chosen: readonly string[], running: readonly string[]): Pick<ResumeRun, "input" | "step" | "breakpoints"> {
  const input = words.trim();
  return {
    ...(input ? { input } : {}),
    ...(how === "step" ? { step: true } : {}),
    ...(how === "no_pauses" ? { breakpoints: [] } : withBreakpoints(resumeBreakpoints(chosen, running))),
  };
}

const withBreakpoints = (breakpoints: string[] | undefined) => (breakpoints ? { breakpoints } : {});

/** A message of the run so far, as the pause shows it. */
export type RunMessage = { seq: number; who: string; text: string; mine: boolean };

/** The run's messages so far, oldest first: the person's request, each agent's reply
 * (its whole text) and the person's answers. */
export function runMessages(view: RunView, names: (agent: string) => string): RunMessage[] {
  const messages: RunMessage[] = [];
  if (view.input) messages.push({ seq: -1, who: "You asked", text: view.input, mine: true });
  for (const turn of view.turns) {
    if (turn.state === "working" || !turn.text.trim()) continue;
    messages.push({ seq: turn.id, who: names(turn.agent), text: turn.text.trim(), mine: false });
  }
  for (const answer of view.answers) {
    if (answer.input.trim()) messages.push({ seq: answer.seq, who: `You told ${names(answer.agent)}`, text: answer.input.trim(), mine: true });
  }
  return messages.sort((a, b) => a.seq - b.seq);
}

/** At most `max` characters of `text`, cut at a word, with "…" when cut. */
export function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

// A run shown live that says its set makes it its crew's (not a replay: its set is
// the past's). A view that is new (nothing applied yet) says nothing.
runStore.subscribe((now, before) => {
  const view = now.view;
  if (!view || !now.crew || now.replay !== null || now.imported || view.lastSeq < 0) return;
  if (view.breakpoints === before.view?.breakpoints) return;
  if (!sameSet(view.breakpoints, chosenBreakpoints(now.crew))) setBreakpoints(now.crew, view.breakpoints);
});
