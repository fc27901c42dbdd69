// The models a run would ask that did not answer their last check.
import { describe, expect, it } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ModelView } from "../bindings/ModelView";
import { silentModels } from "./silentModels";

const model = (name: string, answers: boolean | null, extra: Partial<ModelView> = {}): ModelView => ({
  name,
  provider: "openai",
  model: name,
  base_url: "",
  default: false,
  key: null,
  key_name: null,
  reachable: null,
  problem: null,
  chosen: false,
  ...(answers === null ? {} : { check: { answers, checked_at: 1, ...(answers ? {} : { problem: "nothing answers" }) } }),
  ...extra,
});

const crew: CrewSpec = { name: "Crew", agents: [{ id: "a" }, { id: "b", model: "fast" }, { id: "c", model: "fast" }] };

describe("silentModels", () => {
  it("each agent's own model: the default's and the named ones that did not answer, each once", () => {
    const models = [model("main", false, { default: true }), model("fast", false), model("good", true)];
    expect(silentModels(crew, models, "").map((m) => m.name)).toEqual(["main", "fast"]);
  });

  it("one model for every agent: only that one", () => {
    const models = [model("main", false, { default: true }), model("good", true)];
    expect(silentModels(crew, models, "good")).toEqual([]);
    expect(silentModels(crew, models, "main").map((m) => m.name)).toEqual(["main"]);
  });

  it("a model never checked, or not in Settings, warns of nothing", () => {
    expect(silentModels(crew, [model("main", null, { default: true })], "")).toEqual([]);
    expect(silentModels(crew, [], "openai/gpt-4o")).toEqual([]);
    expect(silentModels(null, [model("main", false, { default: true })], "")).toEqual([]);
  });
});
