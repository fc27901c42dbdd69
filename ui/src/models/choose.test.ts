// One press to a model: added, checked for real, made the default when it answers,
// taken out again when it does not — against a stand-in backend that records calls.
import { describe, expect, it } from "vitest";
import type { Backend } from "../backend/Backend";
import type { ModelCheck } from "../bindings/ModelCheck";
import type { ModelView } from "../bindings/ModelView";
import { addKeyedModel, addServerModel } from "./choose";

const local: ModelView = { name: "local", provider: "local", model: "SmolLM2", base_url: "", default: true, key: null, key_name: null, reachable: null, problem: null, chosen: false };

function fake(check: ModelCheck, models: ModelView[] = [local], keepsKeys = true) {
  const calls: unknown[][] = [];
  const backend = {
    keepsKeys,
    listModels: async () => models,
    putModel: async (name: string, request: unknown) => void calls.push(["put", name, request]),
    removeModel: async (name: string) => void calls.push(["remove", name]),
    setDefaultModel: async (name: string) => void calls.push(["default", name]),
    checkModel: async (name: string) => {
      calls.push(["check", name]);
      return check;
    },
    setApiKey: async (name: string, key: string) => void calls.push(["key", name, key]),
  } satisfies Partial<Backend>;
  return { backend, calls };
}

const good: ModelCheck = { answers: true, context_window: 8192, tools: true, checked_at: 1 };
const refused: ModelCheck = { answers: false, problem: "openai: the API key was refused (401): no", checked_at: 1 };
const server = { kind: "llama.cpp", base_url: "http://127.0.0.1:8080/v1", models: ["SmolLM2-135M-Instruct.Q4_1.gguf"] };

describe("addServerModel", () => {
  it("adds a found model under a name of its own, with a key name of its own, checks it and makes it the default", async () => {
    const { backend, calls } = fake(good);
    const chosen = await addServerModel(backend, server, "SmolLM2-135M-Instruct.Q4_1.gguf");
    expect(chosen).toEqual({ name: "smollm2-135m-instruct.q4_1", check: good, chosen: true });
    expect(calls).toEqual([
      ["put", "smollm2-135m-instruct.q4_1", { provider: "openai", base_url: "http://127.0.0.1:8080/v1", model: "SmolLM2-135M-Instruct.Q4_1.gguf", key_name: "smollm2-135m-instruct-q4_1" }],
      ["check", "smollm2-135m-instruct.q4_1"],
      ["default", "smollm2-135m-instruct.q4_1"],
    ]);
  });

  it("takes a model that does not answer out again, and says why", async () => {
    const { backend, calls } = fake({ answers: false, problem: "it answered with an empty reply", checked_at: 1 });
    const chosen = await addServerModel(backend, server, "m");
    expect(chosen.chosen).toBe(false);
    expect(calls.map((c) => c[0])).toEqual(["put", "check", "remove"]);
  });

  it("reuses a model already set up for that server and model, and keeps it whatever its check says", async () => {
    const mine: ModelView = { ...local, name: "mine", provider: "openai", model: "m", base_url: server.base_url, default: false };
    const { backend, calls } = fake({ answers: false, checked_at: 1 }, [local, mine]);
    await addServerModel(backend, server, "m");
    expect(calls).toEqual([["check", "mine"]]);
  });
});

describe("addKeyedModel", () => {
  it("keeps the key under the provider's name, adds the model and checks it", async () => {
    const { backend, calls } = fake(good);
    const chosen = await addKeyedModel(backend, { choice: "openrouter", model: "openai/gpt-4o-mini", key: " sk-or-1 ", baseUrl: "" });
    expect(chosen.name).toBe("gpt-4o-mini");
    expect(calls).toEqual([
      ["key", "openrouter", "sk-or-1"],
      ["put", "gpt-4o-mini", { provider: "openai", model: "openai/gpt-4o-mini", key_name: "openrouter", base_url: "https://openrouter.ai/api/v1" }],
      ["check", "gpt-4o-mini"],
      ["default", "gpt-4o-mini"],
    ]);
  });

  it("takes the model out again when its key is refused", async () => {
    const { backend, calls } = fake(refused);
    const chosen = await addKeyedModel(backend, { choice: "anthropic", model: "claude-x", key: "bad", baseUrl: "" });
    expect(chosen).toMatchObject({ name: "claude-x", chosen: false });
    expect(calls.at(-1)).toEqual(["remove", "claude-x"]);
  });

  it("gives any OpenAI-compatible server its address and a key name of its own; a browser sends no key", async () => {
    const { backend, calls } = fake(good, [local], false);
    await addKeyedModel(backend, { choice: "compatible", model: "my.model", key: "typed anyway", baseUrl: " https://example.com/v1 " });
    expect(calls[0]).toEqual(["put", "my.model", { provider: "openai", model: "my.model", key_name: "my-model", base_url: "https://example.com/v1" }]);
    expect(calls.some((c) => c[0] === "key")).toBe(false);
  });
});
