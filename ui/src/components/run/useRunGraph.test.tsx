// @vitest-environment jsdom
// The hooks the graph's cards and arrows use: each follows the run as batches
// arrive, and an arrow's info (an object) does not redraw its arrow in a loop.
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { examCrew } from "../../editor/fixtures";
import type { NodeRef } from "../../graph/refs";
import { examRun } from "../../run/fixtures";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { useEdgeRunInfo, useEndWords, useGroupRunWords, useNodeRunClass } from "./useRunGraph";

const teacher: NodeRef = { kind: "agent", agent: "teacher", group: null };
const round: NodeRef = { kind: "group", agent: null, group: "exam_round" };

let renders = 0;
let edgeRenders = 0;

/** An arrow alone, as an edge component would read the run. */
function EdgeProbe() {
  edgeRenders++;
  const edge = useEdgeRunInfo(teacher, round);
  return <span data-testid="edge">{`${edge.count}|${edge.pulse}`}</span>;
}

function Probe() {
  renders++;
  const teacherClass = useNodeRunClass(teacher);
  const edge = useEdgeRunInfo(teacher, round);
  const end = useEndWords();
  const group = useGroupRunWords("exam_round", 30_000);
  return (
    <p data-testid="probe">
      {teacherClass}|{edge.count}|{String(edge.pulse)}|{group ?? "-"}|{end ?? "-"}
    </p>
  );
}

const shown = () => screen.getByTestId("probe").textContent;
const feed = (from: number, to: number) =>
  act(() => runStore.getState().apply({ events: examRun().slice(from, to), end: to >= 35 ? "finished" : null, lost_from: null }));

afterEach(cleanup);
beforeEach(() => {
  open(examCrew(), examDocument());
  runStore.getState().reset();
  renders = 0;
  edgeRenders = 0;
});

describe("the graph's run hooks", () => {
  it("follow the run batch by batch", () => {
    render(<Probe />);
    expect(shown()).toBe("|0|false|-|-");
    act(() => runStore.getState().begin("run-1"));
    feed(0, 2);
    expect(shown()).toBe("run-active|0|false|-|-");
    feed(2, 10);
    // The teacher's arrow was the last one taken; the group has 30 s at most.
    expect(shown()).toMatch(/^run-done\|1\|true\|1 of 2 done · ([0-9]|[12][0-9]|30) s left\|-$/);
    feed(10, 35);
    expect(shown()).toBe("run-done|2|false|2 of 2 done|Finished: Teacher said [END_EXAM]");
    // One render per change, not a loop (an arrow's info is compared field by field).
    expect(renders).toBeLessThan(10);
  });

  it("a batch that changes nothing an arrow shows does not redraw it", () => {
    render(<EdgeProbe />);
    act(() => runStore.getState().begin("run-1"));
    feed(0, 6);
    expect(screen.getByTestId("edge").textContent).toBe("1|true");
    const before = edgeRenders;
    feed(6, 16); // the group at work: tokens, tools, replies
    expect(edgeRenders).toBe(before);
    feed(16, 18); // back to the teacher: another arrow pulses now
    expect(screen.getByTestId("edge").textContent).toBe("1|false");
    expect(edgeRenders).toBe(before + 1);
  });
});
