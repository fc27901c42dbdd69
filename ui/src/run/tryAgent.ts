// Try one agent: which agent's try-out chat is open — a small chat with that agent
// alone, on its model or in Simulate, before running the whole crew. Any part of the
// window opens it: the agent's card or its form (the canvas's side), the run dock
// (its "Try one agent" button); the chat panel (components/run/TryAgentPanel.tsx)
// shows it. Code that should not import this module can send the window a
// `crewgraph:try-agent` event instead (`detail: { agent }`), which opens it too.
//
//   openTryAgent("teacher");                                     // from a button
//   window.dispatchEvent(new CustomEvent("crewgraph:try-agent", { detail: { agent: "teacher" } }));
//   const agent = useTryAgent();                                 // null: no chat open
import { useStore } from "zustand";
import type { CrewSpec } from "../bindings/CrewSpec";
import { createStore } from "zustand/vanilla";

/** The event that opens the chat without importing this module. */
export const TRY_AGENT_EVENT = "crewgraph:try-agent";

type TryAgentState = {
  /** The agent whose chat is open (its id); null: none. */
  agent: string | null;
  /** Counts the times a chat was asked for, so asking again brings it to the front. */
  asked: number;
};

export const tryAgentStore = createStore<TryAgentState>()(() => ({ agent: null, asked: 0 }));

/** Opens the try-out chat with `agent` (its id). */
export function openTryAgent(agent: string): void {
  tryAgentStore.setState((s) => ({ agent, asked: s.asked + 1 }));
}

/** Closes the chat. */
export function closeTryAgent(): void {
  tryAgentStore.setState({ agent: null });
}

/** The agent whose chat is open (null: none), for a component. */
export function useTryAgent(): string | null {
  return useStore(tryAgentStore, (s) => s.agent);
}

/** Listens for `crewgraph:try-agent` events on `target` (the window); answers the
 * function that stops listening. */
export function listenForTryAgent(target: EventTarget): () => void {
  const onEvent = (event: Event) => {
    const agent = (event as CustomEvent<{ agent?: unknown }>).detail?.agent;
    if (typeof agent === "string" && agent) openTryAgent(agent);
  };
  target.addEventListener(TRY_AGENT_EVENT, onEvent);
  return () => target.removeEventListener(TRY_AGENT_EVENT, onEvent);
}

/** The agent a chat opens with when none is named: the one selected on the canvas
 * (its node id `agent:<id>` among `selection`), else the entry point, else the
 * first; null for a crew without agents. */
export function agentToTry(spec: CrewSpec, selection: readonly string[]): string | null {
  const ids = new Set(spec.agents.flatMap((a) => (a.id ? [a.id] : [])));
  const selected = selection.map((id) => (id.startsWith("agent:") ? id.slice("agent:".length) : "")).find((id) => ids.has(id));
  if (selected) return selected;
  if (spec.entry_point && ids.has(spec.entry_point)) return spec.entry_point;
  return ids.values().next().value ?? null;
}
