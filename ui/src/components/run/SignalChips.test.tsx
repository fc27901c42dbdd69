// @vitest-environment jsdom
// An agent's signals as chips: a signal added at once, a line signal asking for its
// payload (and refusing a line its pattern does not match), a line without one
// added as it is.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { lineTemplate } from "../../run/lineSignals";
import { type SignalChip, SignalChips } from "./ReplyBoxes";

afterEach(cleanup);

const chips: SignalChip[] = [
  { signal: "[DONE]", behavior: "terminate", description: null },
  { signal: "review-ready", behavior: "route", description: "ready for review", pattern: "^READY_FOR_REVIEW:\\s*(\\S+)", line: lineTemplate("^READY_FOR_REVIEW:\\s*(\\S+)") },
  { signal: "needs-clarification", behavior: "pause", description: null, pattern: "^SEEKING_CLARIFICATION$", line: lineTemplate("^SEEKING_CLARIFICATION$") },
  { signal: "task-done", behavior: "route", description: null, pattern: "^TASK (\\d+) DONE$", line: lineTemplate("^TASK (\\d+) DONE$") },
];

/** The chips over a reply that starts as `reply`; answers what the reply becomes. */
function chipsOver(reply: string) {
  const state = { reply };
  render(<SignalChips chips={chips} name="Developer" onAdd={(add) => (state.reply = add(state.reply))} />);
  return state;
}

describe("SignalChips", () => {
  it("show a line signal as the line it makes", () => {
    chipsOver("");
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual(["[DONE]", "READY_FOR_REVIEW: …", "SEEKING_CLARIFICATION", "TASK … DONE"]);
  });

  it("add a signal at once, and a line without a payload on a line of its own", () => {
    const state = chipsOver("All done.");
    fireEvent.click(screen.getByRole("button", { name: "[DONE]" }));
    expect(state.reply).toBe("All done. [DONE]");
    fireEvent.click(screen.getByRole("button", { name: "SEEKING_CLARIFICATION" }));
    expect(state.reply).toBe("All done. [DONE]\nSEEKING_CLARIFICATION");
  });

  it("ask for a line signal's payload, then add READY_FOR_REVIEW: T-42", () => {
    const state = chipsOver("Added the login form.");
    fireEvent.click(screen.getByRole("button", { name: "READY_FOR_REVIEW: …" }));
    const payload = screen.getByLabelText("What comes after READY_FOR_REVIEW:?") as HTMLInputElement;
    expect(document.activeElement).toBe(payload);
    expect(state.reply).toBe("Added the login form.");
    fireEvent.change(payload, { target: { value: "T-42" } });
    fireEvent.click(screen.getByRole("button", { name: "Add" }));
    expect(state.reply).toBe("Added the login form.\nREADY_FOR_REVIEW: T-42");
    expect(screen.queryByLabelText("What comes after READY_FOR_REVIEW:?")).toBeNull();
  });

  it("refuse a payload that does not make a line the signal matches, saying why", () => {
    const state = chipsOver("");
    fireEvent.click(screen.getByRole("button", { name: "TASK … DONE" }));
    expect(screen.getByText("… then DONE")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("What comes after TASK?"), { target: { value: "seven" } });
    fireEvent.click(screen.getByRole("button", { name: "Add" }));
    expect(screen.getByRole("alert").textContent).toBe("“TASK seven DONE” is not a line this signal matches (^TASK (\\d+) DONE$).");
    expect(state.reply).toBe("");
    fireEvent.change(screen.getByLabelText("What comes after TASK?"), { target: { value: "7" } });
    fireEvent.click(screen.getByRole("button", { name: "Add" }));
    expect(state.reply).toBe("TASK 7 DONE");
  });
});
