// Names made for models added with one press: what Settings accepts, unique.
import { describe, expect, it } from "vitest";
import { keyNameFor, modelNameFor } from "./names";

describe("modelNameFor", () => {
  it("keeps letters, digits, - _ and . of the provider's name, in lower case", () => {
    expect(modelNameFor("qwen2.5:7b-instruct", [])).toBe("qwen2.5-7b-instruct");
    expect(modelNameFor("Llama 3.1 8B Instruct", [])).toBe("llama-3.1-8b-instruct");
    expect(modelNameFor("gpt-4o-mini", [])).toBe("gpt-4o-mini");
  });

  it("takes the part after the last slash, and drops a model file's .gguf", () => {
    expect(modelNameFor("openai/gpt-4o-mini", [])).toBe("gpt-4o-mini");
    expect(modelNameFor("/models/SmolLM2-135M-Instruct.Q4_1.gguf", [])).toBe("smollm2-135m-instruct.q4_1");
    expect(modelNameFor("C:\\models\\phi-3.gguf", [])).toBe("phi-3");
  });

  it("is unique among the names taken, and never local or default", () => {
    expect(modelNameFor("gpt-4o-mini", ["gpt-4o-mini"])).toBe("gpt-4o-mini-2");
    expect(modelNameFor("gpt-4o-mini", ["gpt-4o-mini", "gpt-4o-mini-2"])).toBe("gpt-4o-mini-3");
    expect(modelNameFor("local", [])).toBe("local-2");
    expect(modelNameFor("Default", [])).toBe("default-2");
  });

  it("makes a name of something when nothing usable is left, and keeps long names short", () => {
    expect(modelNameFor("日本語", [])).toBe("model");
    expect(modelNameFor("", ["model"])).toBe("model-2");
    expect(modelNameFor("--x--", [])).toBe("x");
    const long = modelNameFor("a".repeat(100), []);
    expect(long.length).toBe(48);
    expect(modelNameFor(`${"b".repeat(47)}-c`, [])).toBe("b".repeat(47));
  });

  it("only ever makes names Settings accepts", () => {
    for (const model of ["a b/c:d", "ÄÖÜ-model", "x!!!y", "..hidden", "v1.0.", "__x__"]) {
      expect(modelNameFor(model, [])).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
    }
  });
});

describe("keyNameFor", () => {
  it("gives a key name the keyring accepts", () => {
    expect(keyNameFor("qwen2.5-7b")).toBe("qwen2-5-7b");
    expect(keyNameFor("my_model")).toBe("my_model");
  });
});
