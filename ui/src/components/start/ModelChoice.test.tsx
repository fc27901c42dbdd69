// @vitest-environment jsdom
// The guided start against a stand-in backend: with no model chosen it offers three
// ways; the demo model is chosen with one press and said so; a provider key is
// checked on the spot (a refused key said in words); in a browser no key is sent;
// once a model of one's own is the default, one line says which and what it can do.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelCheck } from "../../bindings/ModelCheck";
import type { ModelView } from "../../bindings/ModelView";
import { resetModels } from "../../models/store";
import { ModelChoice } from "./ModelChoice";
import { modelView as model } from "../../models/testing";

const fake = vi.hoisted(() => ({
  log: [] as unknown[][],
  models: [] as ModelView[],
  check: { answers: true, checked_at: 1 } as ModelCheck,
  keepsKeys: true,
}));

vi.mock("../../backend", () => ({
  backend: {
    get keepsKeys() {
      return fake.keepsKeys;
    },
    listModels: async () => fake.models,
    putModel: async (name: string, request: unknown) => void fake.log.push(["put", name, request]),
    removeModel: async (name: string) => void fake.log.push(["remove", name]),
    setDefaultModel: async (name: string) => {
      fake.log.push(["default", name]);
      fake.models = fake.models.map((m) => ({ ...m, default: m.name === name }));
    },
    checkModel: async (name: string) => {
      fake.log.push(["check", name]);
      fake.models = fake.models.map((m) => (m.name === name ? { ...m, check: fake.check } : m));
      return fake.check;
    },
    setApiKey: async (name: string, key: string) => void fake.log.push(["key", name, key]),
    discoverModels: async () => [],
    modelServers: async () => ["127.0.0.1:11434"],
  },
}));


afterEach(cleanup);
beforeEach(() => {
  Object.assign(fake, { log: [], models: [model("local", { default: true })], check: { answers: true, checked_at: 1 }, keepsKeys: true });
  sessionStorage.clear();
  resetModels();
});

const button = (name: string) => screen.getByRole("button", { name }) as HTMLButtonElement;

describe("the guided start", () => {
  it("offers three ways while no model is chosen, each with one step", async () => {
    render(<ModelChoice />);
    expect(await screen.findByRole("heading", { name: "First, choose a model for your agents" })).toBeTruthy();
    for (const way of ["Try the built-in demo model", "Use a model server on this computer", "Use a provider key"]) {
      expect(screen.getByRole("heading", { name: way })).toBeTruthy();
    }
    expect(button("Use the demo model")).toBeTruthy();
    expect(button("Look for servers").getAttribute("aria-expanded")).toBe("false");
    expect(button("Enter a key").getAttribute("aria-expanded")).toBe("false");
  });

  it("makes the demo model the default with one press, says so, and asks it what it can do", async () => {
    fake.check = { answers: true, context_window: 8192, context_source: "reported by llama.cpp", tools: false, checked_at: 1 };
    render(<ModelChoice />);
    const demo = await screen.findByRole("button", { name: "Use the demo model" });
    await act(async () => fireEvent.click(demo));
    await waitFor(() => expect(fake.log).toEqual([["default", "local"], ["check", "local"]]));
    const line = await screen.findByRole("region", { name: "The model agents use" });
    await waitFor(() =>
      expect(line.textContent).toBe(
        "Agents use the built-in demo model (small, for trying things): it answers · 8,192-token window (reported by llama.cpp) · cannot call tools.Change",
      ),
    );
    // Change shows the ways again.
    fireEvent.click(button("Change"));
    expect(screen.getByRole("button", { name: "In use" }).hasAttribute("disabled")).toBe(true);
  });

  it("shows one line when a model of one's own is the default", async () => {
    fake.models = [model("local"), model("fast", { default: true })];
    render(<ModelChoice />);
    const line = await screen.findByRole("region", { name: "The model agents use" });
    expect(line.textContent).toBe("Agents use fast.Change");
    expect(screen.queryByRole("heading", { name: "First, choose a model for your agents" })).toBeNull();
  });

  it("offers the models one added when none of them is chosen", async () => {
    fake.models = [model("local"), model("fast"), model("wise")];
    render(<ModelChoice />);
    await act(async () => fireEvent.click(await screen.findByRole("button", { name: "wise" })));
    expect(fake.log).toContainEqual(["default", "wise"]);
  });

  it("looks for model servers when asked, and says when none is running", async () => {
    render(<ModelChoice />);
    fireEvent.click(await screen.findByRole("button", { name: "Look for servers" }));
    expect(button("Look for servers").getAttribute("aria-expanded")).toBe("true");
    expect(await screen.findByText(/No model server is running where Crewgraph looked/)).toBeTruthy();
  });
});

describe("a provider key", () => {
  const fill = async (provider: string, modelName: string, key?: string) => {
    render(<ModelChoice />);
    fireEvent.click(await screen.findByRole("button", { name: "Enter a key" }));
    fireEvent.change(screen.getByLabelText("Provider"), { target: { value: provider } });
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: modelName } });
    if (key !== undefined) fireEvent.change(screen.getByLabelText(/^Key/), { target: { value: key } });
  };

  it("keeps the key, adds the model and checks it on the spot", async () => {
    await fill("openai", "gpt-4o-mini");
    expect(button("Check and use").disabled).toBe(true);
    expect(screen.getByText("Paste the key.")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Key"), { target: { value: "sk-good" } });
    await act(async () => fireEvent.click(button("Check and use")));
    expect(fake.log.slice(0, 3)).toEqual([
      ["key", "openai", "sk-good"],
      ["put", "gpt-4o-mini", { provider: "openai", model: "gpt-4o-mini", key_name: "openai" }],
      ["check", "gpt-4o-mini"],
    ]);
    expect(fake.log).toContainEqual(["default", "gpt-4o-mini"]);
    expect(document.body.textContent).not.toContain("sk-good");
  });

  it("says a refused key in words, not as an HTTP error, and adds nothing", async () => {
    fake.check = { answers: false, problem: "anthropic: the API key was refused (401): invalid x-api-key. Check your key", checked_at: 1 };
    await fill("anthropic", "claude-3-5-haiku-latest", "bad");
    await act(async () => fireEvent.click(button("Check and use")));
    expect(screen.getByRole("alert").textContent).toBe("The key was refused — check it and try again.");
    expect(fake.log.at(-1)).toEqual(["remove", "claude-3-5-haiku-latest"]);
    expect(screen.getByRole("heading", { name: "Use a provider key" })).toBeTruthy();
  });

  it("takes any OpenAI-compatible address, the key optional", async () => {
    await fill("compatible", "my-model");
    expect(screen.getByText("Write the server's address.")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Server address"), { target: { value: "https://example.com/v1" } });
    await act(async () => fireEvent.click(button("Check and use")));
    expect(fake.log[0]).toEqual(["put", "my-model", { provider: "openai", model: "my-model", key_name: "my-model", base_url: "https://example.com/v1" }]);
  });

  it("in a browser asks for no key, and says where to set it", async () => {
    fake.keepsKeys = false;
    await fill("openrouter", "openai/gpt-4o-mini");
    expect(screen.queryByLabelText("Key")).toBeNull();
    expect(screen.getByText(/A browser does not send keys over the web/).textContent).toContain(
      "crewgraph keys set openrouter or the environment variable CREWGRAPH_OPENROUTER_API_KEY",
    );
    await act(async () => fireEvent.click(button("Check and use")));
    expect(fake.log.some((c) => c[0] === "key")).toBe(false);
  });
});
