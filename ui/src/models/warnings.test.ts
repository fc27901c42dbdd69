// Warnings about the models a crew runs on, from Settings' models and their checks.
import { describe, expect, it } from "vitest";
import type { AgentSpec } from "../bindings/AgentSpec";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ModelView } from "../bindings/ModelView";
import { defaultModel, estimateTokens, modelNamed, modelWarnings, ROUTER_NODE } from "./warnings";
import { modelView as model } from "./testing";

const checked = (found: Partial<NonNullable<ModelView["check"]>>) => ({ check: { answers: true, checked_at: 1, ...found } });

const crew = (agents: CrewSpec["agents"], routing?: CrewSpec["routing"]): CrewSpec => ({ version: "1.0", name: "t", agents, ...(routing ? { routing } : {}) }) as CrewSpec;
const plain = (warnings: ReturnType<typeof modelWarnings>) => warnings.map((w) => [w.targets, w.diagnostic.plain]);

describe("modelNamed", () => {
  const models = [model("local"), model("fast", { default: true }), model("wise")];
  it("resolves names as the engine does", () => {
    expect(modelNamed(undefined, models)?.name).toBe("fast");
    expect(modelNamed("default", models)?.name).toBe("fast");
    expect(modelNamed(" wise ", models)?.name).toBe("wise");
    expect(modelNamed("local", models)?.name).toBe("local");
    expect(modelNamed("openai/gpt-4o", models)).toBeUndefined();
  });

  it("runs every name on the local model while no model of one's own is set up", () => {
    const only = [model("local", { default: true })];
    expect(modelNamed("openai/gpt-4o", only)?.name).toBe("local");
    expect(modelNamed("fast", only)?.name).toBe("local");
  });

  it("takes the only model of one's own as the default when none is marked", () => {
    expect(defaultModel([model("local"), model("fast")])?.name).toBe("fast");
    expect(defaultModel([model("local"), model("fast"), model("wise")])).toBeUndefined();
  });
});

describe("modelWarnings", () => {
  it("warns on an agent with tools whose model cannot call tools", () => {
    const models = [model("local", { default: true, ...checked({ tools: false }) })];
    const spec = crew([{ id: "teacher", tools: ["calculator"] }, { id: "student" }]);
    expect(plain(modelWarnings(spec, models))).toEqual([
      [["agent:teacher"], "This agent's tools won't work on local: it cannot call tools. Pick another model."],
    ]);
    expect(modelWarnings(spec, models)[0].diagnostic.severity).toBe("warning");
  });

  it("says nothing about a model never checked, one that can call tools, or one that did not answer", () => {
    const spec = crew([{ id: "a", tools: ["calculator"], model: "fast" }]);
    expect(modelWarnings(spec, [model("local"), model("fast")])).toEqual([]);
    expect(modelWarnings(spec, [model("local"), model("fast", checked({ tools: true }))])).toEqual([]);
    expect(modelWarnings(spec, [model("local"), model("fast", { check: { answers: false, checked_at: 1 } })])).toEqual([]);
    expect(modelWarnings(crew([{ id: "a", tools: ["calculator"], model: "openai/gpt-4o" }]), [model("local"), model("fast", checked({ tools: false }))])).toEqual([]);
  });

  it("reads the Go engine's primary model too", () => {
    const spec = crew([{ id: "a", tools: ["http_get"], primary: { model: "fast" } }]);
    const models = [model("local", { default: true }), model("fast", checked({ tools: false }))];
    expect(plain(modelWarnings(spec, models))).toHaveLength(1);
  });

  it("warns on the router when an llm-routed crew's router model gives no structured answers", () => {
    const models = [model("local"), model("fast", { default: true, ...checked({ structured: false }) }), model("wise", checked({ structured: true }))];
    const routed = (router?: { model?: string }) => crew([{ id: "a" }, { id: "b" }], { strategy: "llm", ...(router ? { router } : {}) });
    const [byDefault] = modelWarnings(routed(), models);
    expect(byDefault.targets).toEqual([ROUTER_NODE]);
    expect(byDefault.diagnostic.plain).toMatch(/^The router model fast cannot give structured answers, so it cannot pick who works next\. Make another model the default/);
    const [named] = modelWarnings(routed({ model: "fast" }), models);
    expect(named.diagnostic.plain).toMatch(/Name another model for the router in the crew file/);
    expect(modelWarnings(routed({ model: "wise" }), models)).toEqual([]);
    expect(modelWarnings(crew([{ id: "a" }], { strategy: "signals" }), models)).toEqual([]);
  });

  it("warns on an agent whose instructions are larger than its model's window, as set or as checked", () => {
    const prompt = "x".repeat(3 * 300 + 1); // 301 tokens at three characters a token
    const spec = crew([{ id: "a", system_prompt: prompt }]);
    const [warning] = modelWarnings(spec, [model("local"), model("small", { default: true, context_window: 300 })]);
    expect(warning.targets).toEqual(["agent:a"]);
    expect(warning.diagnostic.plain).toBe("This agent's instructions (about 301 tokens) are longer than small's 300-token window. Shorten them, or pick a model with a larger window.");
    expect(modelWarnings(spec, [model("local"), model("small", { default: true, ...checked({ context_window: 300 }) })])).toHaveLength(1);
    expect(modelWarnings(spec, [model("local"), model("small", { default: true, ...checked({ context_window: 301 }) })])).toEqual([]);
  });

  it("estimates a token per three characters, on the large side", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(2);
    expect(estimateTokens("ééé")).toBe(1);
  });

  it("names a model that is not set up, and what a run does about it", () => {
    const crew = (model: string, more: Partial<AgentSpec> = {}): CrewSpec => ({ version: "1.0", agents: [{ id: "triage", model, ...more }] });
    const plain = (spec: CrewSpec, models: ModelView[]) => modelWarnings(spec, models).map((w) => w.diagnostic.plain);
    expect(plain(crew("fast"), [model("local")])).toEqual([
      "This agent asks for the model 'fast', which is not set up: it runs on the built-in demo model for now. Add 'fast' in Settings to use it.",
    ]);
    expect(plain(crew("fast"), [model("local"), model("smart", { default: true })])[0]).toContain("a run stops when it is this agent's turn");
    expect(plain(crew("fast"), [model("local"), model("fast")])).toEqual([]);
    for (const fine of ["default", "local", "openai/gpt-4o-mini"]) expect(plain(crew(fine), [model("local"), model("smart")])).toEqual([]);
    expect(plain(crew("llama3", { provider: "openai" }), [model("local"), model("smart")]), "the Go engine's provider names it").toEqual([]);
  });
});
