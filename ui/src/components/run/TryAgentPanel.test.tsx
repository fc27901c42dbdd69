// @vitest-environment jsdom
// Try one agent: the chat opens from the store or the window's event, sends the chat
// so far with the crew as edited, shows the reply and where a run would go after it,
// says in the chat when the model did not answer, and in Simulate sends the reply
// the person wrote for the agent as its script.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TryAgent } from "../../bindings/TryAgent";
import { examCrew } from "../../editor/fixtures";
import { closeTryAgent, listenForTryAgent, openTryAgent, tryAgentStore } from "../../run/tryAgent";
import { agentToTry } from "../../run/tryAgent";
import { examDocument, open } from "../inspector/testing";
import { TryAgentPanel } from "./TryAgentPanel";

const fake = vi.hoisted(() => ({
  asked: [] as TryAgent[],
  answer: { reply: "Question 1: what is 1/2 + 1/4? [QUESTION]", next: "[QUESTION] — the work would go to exam_round" } as { reply: string; next: string; problem?: string },
}));

vi.mock("../../backend", () => ({
  backend: {
    listModels: async () => [],
    tryAgent: async (request: TryAgent) => {
      fake.asked.push(structuredClone(request));
      return fake.answer;
    },
  },
}));

afterEach(() => {
  cleanup();
  closeTryAgent();
});
beforeEach(() => {
  open(examCrew(), examDocument());
  fake.asked = [];
  fake.answer = { reply: "Question 1: what is 1/2 + 1/4? [QUESTION]", next: "[QUESTION] — the work would go to exam_round" };
});

const box = () => screen.getByRole("textbox") as HTMLTextAreaElement;
const send = async (text: string) => {
  fireEvent.change(box(), { target: { value: text } });
  await act(async () => {
    fireEvent.keyDown(box(), { key: "Enter" });
  });
};

describe("Try one agent", () => {
  it("opens on the store's word, or the window's event; closes with Esc", () => {
    render(<TryAgentPanel />);
    expect(screen.queryByRole("region")).toBeNull();
    act(() => openTryAgent("teacher"));
    expect(screen.getByRole("heading").textContent).toBe("Try Teacher alone");
    act(() => closeTryAgent());
    const stop = listenForTryAgent(window);
    act(() => void window.dispatchEvent(new CustomEvent("crewgraph:try-agent", { detail: { agent: "student" } })));
    expect(tryAgentStore.getState().agent).toBe("student");
    stop();
    fireEvent.keyDown(box(), { key: "Escape" });
    expect(tryAgentStore.getState().agent).toBeNull();
  });

  it("sends the chat with the crew as edited; shows the reply and where a run would go", async () => {
    render(<TryAgentPanel />);
    act(() => openTryAgent("teacher"));
    await send("Please begin.");
    expect(fake.asked).toEqual([{ spec: examCrew(), agent: "teacher", messages: [{ from_agent: false, text: "Please begin." }], model: undefined, script: undefined }]);
    expect(screen.getByRole("log").textContent).toContain("Question 1: what is 1/2 + 1/4? [QUESTION]");
    expect(screen.getByText("Then: [QUESTION] — the work would go to exam_round")).toBeTruthy();
    await send("3/4");
    expect(fake.asked[1].messages).toEqual([
      { from_agent: false, text: "Please begin." },
      { from_agent: true, text: "Question 1: what is 1/2 + 1/4? [QUESTION]" },
      { from_agent: false, text: "3/4" },
    ]);
  });

  it("says in the chat when the model did not answer", async () => {
    fake.answer = { reply: "", next: "", problem: "Teacher's model did not answer: nothing answers at 127.0.0.1:9" };
    render(<TryAgentPanel />);
    act(() => openTryAgent("teacher"));
    await send("Hello");
    expect(screen.getByRole("alert").textContent).toBe("Teacher's model did not answer: nothing answers at 127.0.0.1:9");
  });

  it("in Simulate, the person writes the agent's reply too, sent as its script", async () => {
    render(<TryAgentPanel />);
    act(() => openTryAgent("teacher"));
    fireEvent.change(screen.getByLabelText("Answers with"), { target: { value: "\u0000simulate" } });
    await send("Please begin.");
    expect(fake.asked).toEqual([]);
    expect(screen.getByLabelText("What does Teacher say?")).toBeTruthy();
    fireEvent.change(box(), { target: { value: "What is 1/2 + 1/4?" } });
    fireEvent.click(screen.getByRole("button", { name: "[QUESTION]" }));
    await act(async () => {
      fireEvent.keyDown(box(), { key: "Enter" });
    });
    expect(fake.asked[0].messages).toEqual([{ from_agent: false, text: "Please begin." }]);
    expect(JSON.parse(fake.asked[0].script ?? "")).toEqual({ replies: { teacher: ["What is 1/2 + 1/4? [QUESTION]"] } });
  });

  it("opens with the agent selected on the canvas, else the entry point", () => {
    expect(agentToTry(examCrew(), ["agent:student"])).toBe("student");
    expect(agentToTry(examCrew(), ["group:exam_round"])).toBe("teacher");
    expect(agentToTry({ agents: [] }, [])).toBeNull();
  });
});
