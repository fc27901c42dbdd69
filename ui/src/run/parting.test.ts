// Where a fork parts from its first run, from the two runs' events: the moves after
// the reply replaced — the first run's (drawn faint, dashed) and the fork's
// (highlighted) — as the graph's arrows; a fork that went the same way parts
// nowhere; a fork that has not moved on yet has no arrow of its own; a seq that is
// no reply is no parting.
import { describe, expect, it } from "vitest";
import type { ViewEdge } from "../bindings/ViewEdge";
import { signalEdge } from "../components/inspector/testing";
import type { Arrow, NodeRef } from "../graph/refs";
import { type EventBody, events } from "./fixtures";
import { partingArrows, whereRunsPart } from "./parting";

const agent = (id: string): NodeRef => ({ kind: "agent", agent: id, group: null });
const end: NodeRef = { kind: "end", agent: null, group: null };
const arrow = (from: string, to: NodeRef, view: ViewEdge): Arrow => ({ view, source: agent(from), target: to });

/** Office hours: the teacher asks what the student wants; the student asks a
 * question ([QUESTION] → teacher) or for a book ([BOOK] → librarian). */
const arrows: Arrow[] = [
  arrow("teacher", agent("student"), signalEdge("teacher", 0, "agent:student", "[ASK]", "route")),
  arrow("teacher", end, signalEdge("teacher", 1, "end", "[ANSWERED]", "terminate")),
  arrow("student", agent("teacher"), signalEdge("student", 0, "agent:teacher", "[QUESTION]", "route")),
  arrow("student", agent("librarian"), signalEdge("student", 1, "agent:librarian", "[BOOK]", "route")),
  arrow("librarian", end, signalEdge("librarian", 0, "end", "[FOUND]", "terminate")),
];

/** The run up to the student's reply (its `agent_response` is event 6). */
const before: EventBody[] = [
  { type: "run_started", crew: "Office hours", input: "Help me with fractions" },
  { type: "agent_started", agent: "teacher", step: 1 },
  { type: "agent_response", agent: "teacher", content: "What would you like? [ASK]" },
  { type: "signal_matched", agent: "teacher", signal: "[ASK]", level: "exact", behavior: "route", target: "student" },
  { type: "handoff", from: "teacher", to: "student", reason: "signal [ASK] (exact)", handoff_count: 1 },
  { type: "agent_started", agent: "student", step: 2 },
];

const first = events(
  [
    ...before,
    { type: "agent_response", agent: "student", content: "What is 1/2 + 1/4? [QUESTION]" },
    { type: "signal_matched", agent: "student", signal: "[QUESTION]", level: "exact", behavior: "route", target: "teacher" },
    { type: "handoff", from: "student", to: "teacher", reason: "signal [QUESTION] (exact)", handoff_count: 2 },
    { type: "agent_started", agent: "teacher", step: 3 },
    { type: "agent_response", agent: "teacher", content: "3/4. [ANSWERED]" },
    { type: "signal_matched", agent: "teacher", signal: "[ANSWERED]", level: "exact", behavior: "terminate", target: null },
    { type: "run_finished", status: "terminated", final_agent: "teacher", handoffs: 2, steps: 3 },
  ],
  "first",
);

/** The fork: the same first six events, then the student asks for a book. */
const forkUpTo = (count: number) =>
  events(
    ([
      ...before,
      { type: "agent_response", agent: "student", content: "Can I borrow a book on fractions? [BOOK]" },
      { type: "signal_matched", agent: "student", signal: "[BOOK]", level: "exact", behavior: "route", target: "librarian" },
      { type: "handoff", from: "student", to: "librarian", reason: "signal [BOOK] (exact)", handoff_count: 2 },
      { type: "agent_started", agent: "librarian", step: 3 },
      { type: "agent_response", agent: "librarian", content: "Here it is. [FOUND]" },
      { type: "signal_matched", agent: "librarian", signal: "[FOUND]", level: "exact", behavior: "terminate", target: null },
      { type: "run_finished", status: "terminated", final_agent: "librarian", handoffs: 2, steps: 3 },
    ] as EventBody[]).slice(0, count),
    "fork",
  );

describe("whereRunsPart", () => {
  it("finds the reply replaced and the moves each run made after it", () => {
    const parting = whereRunsPart(first, forkUpTo(13), 6);
    expect(parting?.agent).toBe("student");
    expect(parting?.first.map((m) => [m.from, m.to])).toEqual([["student", "teacher"]]);
    expect(parting?.fork.map((m) => [m.from, m.to])).toEqual([["student", "librarian"]]);
  });

  it("draws the first run's arrow there as parted and the fork's as taken", () => {
    expect(partingArrows(whereRunsPart(first, forkUpTo(13), 6), arrows)).toEqual({
      parted: ["rule:student:0:agent:teacher"],
      taken: ["rule:student:1:agent:librarian"],
    });
  });

  it("a fork that has not moved on from the reply yet has no arrow of its own (the first run's is not marked either)", () => {
    const parting = whereRunsPart(first, forkUpTo(7), 6);
    expect(parting?.fork).toEqual([]);
    expect(partingArrows(parting, arrows)).toEqual({ parted: ["rule:student:0:agent:teacher"], taken: [] });
  });

  it("a fork whose new reply went the same way parts nowhere", () => {
    const same = events(
      [...before, { type: "agent_response", agent: "student", content: "And 1/3 + 1/3? [QUESTION]" }, ...first.slice(7).map(({ run_id, seq, timestamp, ...body }) => body as EventBody)],
      "fork",
    );
    expect(partingArrows(whereRunsPart(first, same, 6), arrows)).toEqual({ parted: [], taken: [] });
  });

  it("a seq that is no reply is no parting", () => {
    expect(whereRunsPart(first, forkUpTo(13), 5)).toBeNull();
    expect(whereRunsPart(first, forkUpTo(13), 99)).toBeNull();
    expect(partingArrows(null, arrows)).toEqual({ parted: [], taken: [] });
  });

  it("forked at the reply that ended the run: the first run's arrow into End is the one it parts from", () => {
    // (The teacher's last reply is event 10 of the first run; the fork has got that far only.)
    const fork = first.slice(0, 11).map((e) => ({ ...e, run_id: "fork" }));
    const parting = whereRunsPart(first, fork, 10);
    expect(parting?.agent).toBe("teacher");
    expect(partingArrows(parting, arrows)).toEqual({ parted: ["rule:teacher:1:end"], taken: [] });
  });
});
