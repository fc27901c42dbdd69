// @vitest-environment jsdom
// The history panel: revisions newest first with what changed and their runs, the
// two newest picked so the last change is one click from its comparison, a refused
// comparison said in words, and a revision restored as one undoable edit; the
// comparison's words: every change, and changed instructions line by line.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RevisionDiff } from "../../bindings/RevisionDiff";
import type { RevisionView } from "../../bindings/RevisionView";
import { examCrew } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";
import { HistoryPanel } from "./HistoryPanel";
import { CompareWords } from "./RevisionCompare";

const fake = vi.hoisted(() => ({
  revisions: [] as RevisionView[],
  diffs: [] as Array<[string, number, number]>,
  refuse: null as string | null,
  restored: null as unknown,
}));

vi.mock("../../backend", () => ({
  backend: {
    listRevisions: async () => fake.revisions,
    diffRevisions: async (crew: string, from: number, to: number) => {
      fake.diffs.push([crew, from, to]);
      if (fake.refuse) throw { code: "invalid_input", message: fake.refuse };
      return { crew, from, to, changes: { sentences: ["added agent Critic"] }, overlay: { graph: { nodes: [], edges: [] }, marks: {} } };
    },
    openRevision: async (crew: string, revision: number) => ({ crew, revision, saved_at: "2026-11-27T10:00:00Z", spec: fake.restored }),
  },
}));

// The canvas of a comparison needs a real browser (the window e2e draws it); here it
// only says which revisions it shows.
vi.mock("./RevisionCompare", async (actual) => ({
  ...(await actual<typeof import("./RevisionCompare")>()),
  RevisionCompare: ({ compared }: { compared: RevisionDiff }) => <p>Comparing {`${compared.from} → ${compared.to}`}</p>,
}));

const revision = (n: number, previous: number | null, changes: string[], more: Partial<RevisionView> = {}): RevisionView => ({
  revision: n,
  name: "Exam",
  saved_at: "2026-11-27T10:00:00Z",
  previous,
  changes,
  runs: [],
  current: false,
  ...more,
});

const finished = {
  id: "run-1",
  crew_name: "Exam",
  input: "Begin",
  status: "terminated" as const,
  created_at: "2026-11-27T10:00:00Z",
  updated_at: "2026-11-27T10:00:05Z",
  steps: 7,
  handoffs: 2,
  error: null,
  tokens: { input_tokens: 100, output_tokens: 20, cost_usd: 0.0042 },
  crew_revision: 3,
};

beforeEach(() => {
  fake.revisions = [
    revision(3, 2, ["added agent Critic", "Editor's route [REVISE] now goes to Critic (was Writer)"], { runs: [finished], current: true }),
    revision(2, 1, []),
    revision(1, null, []),
  ];
  Object.assign(fake, { diffs: [], refuse: null, restored: null });
  editorStore.getState().load({ path: "/crews/exam.yaml", layout: "file", spec: examCrew(), document: null, positions: {} });
});
afterEach(cleanup);

const items = () => [...document.querySelectorAll<HTMLElement>(".history-item")];

describe("HistoryPanel", () => {
  it("lists revisions newest first with what changed in words and the runs of each", async () => {
    render(<HistoryPanel crew="/crews/exam.yaml" onClose={() => {}} />);
    await waitFor(() => expect(items()).toHaveLength(3));
    expect(items().map((i) => i.dataset.revision)).toEqual(["3", "2", "1"]);
    expect(items()[0].textContent).toContain("Added agent Critic");
    expect(items()[0].textContent).toContain("Editor's route [REVISE] now goes to Critic (was Writer)");
    expect(items()[0].textContent).toContain("1 run · $0.0042 in all");
    expect(items()[0].textContent).toContain("finished · 7 steps · $0.0042");
    expect(items()[0].textContent).toContain("saved now");
    expect(items()[1].textContent).toContain("only how its file is written");
    expect(items()[2].textContent).toContain("The first revision kept.");
  });

  it("has the two newest picked, compares them older first, and any two picked", async () => {
    render(<HistoryPanel crew="/crews/exam.yaml" onClose={() => {}} />);
    const compare = await screen.findByRole("button", { name: "Compare revision 2 with 3" });
    fireEvent.click(compare);
    expect(await screen.findByText("Comparing 2 → 3")).toBeTruthy();
    fireEvent.click(screen.getByRole("checkbox", { name: /Revision 1/ }));
    fireEvent.click(screen.getByRole("button", { name: "Compare revision 1 with 3" }));
    await waitFor(() => expect(fake.diffs).toEqual([["/crews/exam.yaml", 2, 3], ["/crews/exam.yaml", 1, 3]]));
  });

  it("says in words why two revisions could not be compared", async () => {
    fake.refuse = "revision 1 is of the crew 'a.yaml' and revision 2 of another crew, 'b.yaml': only two revisions of the same crew can be compared";
    render(<HistoryPanel crew="/crews/exam.yaml" onClose={() => {}} />);
    fireEvent.click(await screen.findByRole("button", { name: "Compare revision 2 with 3" }));
    expect((await screen.findByRole("alert")).textContent).toContain("only two revisions of the same crew can be compared");
  });

  it("restores a revision as one edit: Undo brings back the crew as it was", async () => {
    const now = editorStore.getState().spec;
    fake.restored = { ...examCrew(), name: "Exam, as it was" };
    render(<HistoryPanel crew="/crews/exam.yaml" onClose={() => {}} />);
    await waitFor(() => expect(items()).toHaveLength(3));
    fireEvent.click(items()[1].querySelector("button.history-restore")!);
    expect((await screen.findByRole("status")).textContent).toContain("Revision 2 is back in the editor");
    expect(editorStore.getState().spec?.name).toBe("Exam, as it was");
    editorStore.getState().undo();
    expect(editorStore.getState().spec).toEqual(now);
  });

  it("says what to do when the crew has no revisions yet", async () => {
    fake.revisions = [];
    render(<HistoryPanel crew="/crews/exam.yaml" onClose={() => {}} />);
    expect(await screen.findByText(/No revisions yet: save the crew/)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Tick two revisions to compare" }).hasAttribute("disabled")).toBe(true);
  });
});

describe("CompareWords", () => {
  it("says every change and shows changed instructions line by line, signs beside", () => {
    render(
      <CompareWords
        changes={{
          crew: [],
          agents: [
            {
              id: "writer",
              name: "Writer",
              change: "changed",
              fields: [
                {
                  field: "system_prompt",
                  words: "instructions",
                  before: "a",
                  after: "b",
                  hunks: [{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: [{ kind: "same", text: "Write." }, { kind: "removed", text: "Keep it short." }, { kind: "added", text: "Keep it under 200 words." }] }],
                },
              ],
            },
          ],
          routes: [],
          fallbacks: [],
          groups: [],
          signals: [],
          sentences: ["changed Writer's instructions"],
        }}
      />,
    );
    expect(screen.getByText("Changed Writer's instructions")).toBeTruthy();
    expect(screen.getByText("Writer's instructions")).toBeTruthy();
    const lines = [...document.querySelectorAll(".diff-line")].map((l) => `${l.className.replace("diff-line ", "")}:${l.textContent?.trim()}`);
    expect(lines).toEqual(["same:Write.", "removed:−Keep it short.", "added:+Keep it under 200 words."]);
  });
});
