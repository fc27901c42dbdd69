import { describe, expect, it } from "vitest";
import { modelView } from "../../models/testing";
import { modelTag } from "./AgentNode";

describe("a card's model tag", () => {
  it("names the default model, so a model added as the default shows on every card that uses it", () => {
    const fast = modelView("fast", { default: true });
    expect(modelTag(null, [modelView("local"), fast])).toBe("default · fast");
    expect(modelTag("default", [modelView("local"), fast])).toBe("default · fast");
    expect(modelTag(undefined, [modelView("local")]), "nothing set up: the local model stands in").toBe("default · local");
    expect(modelTag(null, null), "before the models are known").toBe("default");
  });

  it("shows a model the agent names itself as it is written", () => {
    expect(modelTag("openai/gpt-4.1", [modelView("fast", { default: true })])).toBe("openai/gpt-4.1");
  });
});
