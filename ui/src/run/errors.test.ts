// A failed run's error, read for a person: who failed, what happened in one
// sentence, what to try, and the engine's whole text kept.
import { describe, expect, it } from "vitest";
import { explainFailure, failureLine } from "./errors";

const names = (id: string) => ({ host: "Host", student: "Student" })[id] ?? id;

describe("explainFailure", () => {
  it("nothing listening at the model's address: the place, the question, what to try; the details kept", () => {
    const error =
      "agent 'host': openai at http://127.0.0.1:9/v1: nothing answers at 127.0.0.1:9 — is the model server running? (Connection refused (os error 111)) (tried 3 times)";
    const failure = explainFailure(error);
    expect(failure).toEqual({
      agent: "host",
      headline: "nothing answers at 127.0.0.1:9 — is the model server running?",
      advice: "Start the model server, or choose another model in the Model list, then run again.",
      details: error,
    });
    expect(failureLine(failure, names)).toBe(
      "Failed at Host: nothing answers at 127.0.0.1:9 — is the model server running? Start the model server, or choose another model in the Model list, then run again.",
    );
  });

  it("a script without replies left, a group out of time, a refused key", () => {
    expect(explainFailure("agent 'student': the script has no more replies for student").advice).toMatch(/Add replies for this agent to the script/);
    expect(explainFailure("member 'student' of group 'exam_round' did not finish within 30s")).toMatchObject({
      agent: null,
      headline: "member 'student' of group 'exam_round' did not finish within 30s.",
      advice: expect.stringMatching(/^Give the group more time/),
    });
    expect(explainFailure("agent 'host': openai at https://api.openai.com/v1: the key was refused (401 Unauthorized)")).toMatchObject({
      headline: "the key was refused.",
      advice: "Check the model's API key in Settings, then run again.",
    });
  });

  it("an error it does not know: the words as they are, and a general way on", () => {
    const failure = explainFailure("agent 'student': provider unavailable");
    expect(failureLine(failure, names)).toBe("Failed at Student: provider unavailable. Run again, or choose another model in the Model list.");
    expect(explainFailure("(everything in parentheses)").headline).toBe("(everything in parentheses).");
  });
});
