// @vitest-environment jsdom
// The Usage tab of the run dock, with chart.js stood in for (jsdom has no canvas):
// the run's totals in words, a chart per agent of tokens in and out and one of the
// time taken, in the agents' names; Simulate mode says no tokens were spent and
// still charts the time; a new reply updates the charts in place.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunEvent } from "../../bindings/RunEvent";
import { examCrew } from "../../editor/fixtures";
import { examRun, events } from "../../run/fixtures";
import { fromEvents } from "../../run/reducer";
import { runStore } from "../../run/store";
import { idName } from "../../run/words";
import { examDocument, open } from "../inspector/testing";
import { barConfig, chartHeight } from "./BarChart";
import { RunDock } from "./RunDock";
import { TOKENS_IN, TOKENS_OUT, usageCharts, UsageView } from "./UsageView";

type Config = { data: { labels: string[]; datasets: Array<{ label: string; data: number[] }> } };

const charts = vi.hoisted(() => ({ made: [] as Array<{ config: Config; updates: number; destroyed: boolean }> }));

vi.mock("chart.js", () => {
  class Chart {
    static register() {}
    entry: { config: Config; updates: number; destroyed: boolean };
    constructor(_canvas: unknown, config: Config) {
      this.entry = { config, updates: 0, destroyed: false };
      charts.made.push(this.entry);
    }
    set data(data: Config["data"]) {
      this.entry.config = { ...this.entry.config, data };
    }
    set options(_: unknown) {}
    update() {
      this.entry.updates += 1;
    }
    destroy() {
      this.entry.destroyed = true;
    }
  }
  return { Chart, BarController: {}, BarElement: {}, CategoryScale: {}, LinearScale: {}, Legend: {}, Tooltip: {} };
});

vi.mock("../../backend", () => ({ backend: { listModels: async () => [] } }));

/** The exam's teacher and student with tokens reported; the student takes 2.5 s. */
function metered(): RunEvent[] {
  return events([
    { type: "run_started", crew: "Fractions exam", input: "Begin." },
    { type: "agent_started", agent: "teacher", step: 1 },
    { type: "agent_response", agent: "teacher", content: "Q [QUESTION]", usage: { input_tokens: 1000, output_tokens: 200 } },
    { type: "handoff", from: "teacher", to: "student", reason: "signal [QUESTION] (exact)", handoff_count: 1 },
    { type: "agent_started", agent: "student", step: 2 },
    { type: "agent_response", agent: "student", content: "3/4", usage: { input_tokens: 234, output_tokens: 121 } },
  ]).map((e) => (e.seq === 5 ? { ...e, timestamp: new Date(Date.parse(e.timestamp) + 2500).toISOString() } : e));
}

afterEach(cleanup);
beforeEach(() => {
  open(examCrew(), examDocument());
  runStore.getState().reset();
  charts.made = [];
});

describe("the Usage view", () => {
  it("says what it will show before any agent has replied", () => {
    render(<UsageView />);
    expect(screen.getByText(/Once an agent has replied/)).toBeTruthy();
    expect(charts.made).toHaveLength(0);
  });

  it("gives the run's totals in words and charts tokens and time per agent, by name", () => {
    runStore.getState().load(metered());
    render(<UsageView />);
    expect(screen.getByText("1,234 tokens in · 321 out · 2.5 s")).toBeTruthy();
    expect(charts.made).toHaveLength(2);
    const [tokens, time] = charts.made.map((c) => c.config.data);
    expect(tokens.labels).toEqual(["Teacher", "Student"]);
    expect(tokens.datasets.map((d) => [d.label, d.data])).toEqual([
      ["In (read)", [1000, 234]],
      ["Out (written)", [200, 121]],
    ]);
    expect(time.datasets[0].data).toEqual([1, 2501]);
    // Said in words too, for a screen reader.
    expect(screen.getByRole("img", { name: "Teacher: 1,000 tokens in, 200 out; Student: 234 tokens in, 121 out" })).toBeTruthy();
  });

  it("in Simulate mode says no tokens were spent, and still charts the time", () => {
    runStore.getState().load(examRun());
    render(<UsageView />);
    expect(screen.getByText(/^No tokens spent · /)).toBeTruthy();
    expect(screen.getByText(/No tokens were spent: the replies were simulated/)).toBeTruthy();
    expect(charts.made).toHaveLength(1);
    expect(charts.made[0].config.data.labels).toEqual(["Teacher", "Student", "Reporter"]);
  });

  it("updates its charts in place as replies come, and lets them go when it closes", () => {
    runStore.getState().begin("run-1");
    runStore.getState().apply({ events: metered().slice(0, 3), end: null, lost_from: null });
    const { unmount } = render(<UsageView />);
    expect(charts.made).toHaveLength(2);
    act(() => runStore.getState().apply({ events: metered().slice(3), end: null, lost_from: null }));
    expect(charts.made).toHaveLength(2);
    expect(charts.made[0].updates).toBe(1);
    expect(charts.made[0].config.data.labels).toEqual(["Teacher", "Student"]);
    unmount();
    expect(charts.made.every((c) => c.destroyed)).toBe(true);
  });

  it("is a tab beside the handoffs in the run dock", async () => {
    runStore.getState().load(metered());
    render(<RunDock crewPath="/home/ana/crews/exam.yaml" crewValid />);
    expect(screen.getByRole("tab", { name: "Handoffs" }).getAttribute("aria-selected")).toBe("true");
    expect(screen.queryByText(/tokens in/)).toBeNull();
    fireEvent.click(screen.getByRole("tab", { name: "Usage" }));
    expect(await screen.findByText("1,234 tokens in · 321 out · 2.5 s")).toBeTruthy();
    expect(screen.queryByRole("list")).toBeNull();
  });
});

describe("the charts' shape", () => {
  it("rows by agent (ids when the crew does not know them), in the order they first replied", () => {
    const built = usageCharts(fromEvents(metered()).usage, idName);
    expect(built.labels).toEqual(["teacher", "student"]);
    expect(built.tokens.map((s) => s.color)).toEqual([TOKENS_IN, TOKENS_OUT]);
    expect(built.time[0].color).toHaveLength(2);
  });

  it("are horizontal bars from zero, without animation, in the theme's ink, a legend only for two series", () => {
    const ink = { text: "#111", muted: "#666", grid: "#ddd" };
    const one = barConfig({ labels: ["A"], series: [{ label: "Time", values: [1500], color: "#123" }], format: (v) => `${v / 1000} s` }, ink);
    expect(one.options).toMatchObject({ indexAxis: "y", animation: false, plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true } } });
    expect(one.options?.scales?.y?.ticks?.color).toBe("#111");
    expect(chartHeight(2, 2)).toBeGreaterThan(chartHeight(2, 1));
  });
});
