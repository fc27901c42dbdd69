// @vitest-environment jsdom
// Settings against a stand-in backend: what the list shows (never a key), and what
// adding a model, saving or forgetting a key, choosing the default and removing ask of it.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelView } from "../../bindings/ModelView";
import { SettingsDialog } from "./SettingsDialog";

const calls = vi.hoisted(() => ({ log: [] as unknown[][], models: [] as ModelView[] }));

vi.mock("../../backend", () => ({
  backend: {
    listModels: async (check?: boolean) => {
      calls.log.push(["list", check]);
      return calls.models;
    },
    putModel: async (name: string, request: unknown) => void calls.log.push(["put", name, request]),
    removeModel: async (name: string) => void calls.log.push(["remove", name]),
    setDefaultModel: async (name: string) => void calls.log.push(["default", name]),
    setApiKey: async (name: string, key: string) => void calls.log.push(["key", name, key]),
    removeApiKey: async (name: string) => {
      calls.log.push(["forget", name]);
      return true;
    },
  },
}));

const local: ModelView = { name: "local", provider: "local", model: "SmolLM2", base_url: "", default: true, key: null, key_name: null, reachable: null, problem: null };
const fast: ModelView = { name: "fast", provider: "openai", model: "gpt-4o-mini", base_url: "https://api.openai.com/v1", default: false, key: "keyring", key_name: "openai", reachable: null, problem: null };

beforeEach(() => {
  calls.log = [];
  calls.models = [local, fast];
});
afterEach(cleanup);

describe("Settings", () => {
  it("lists the models and says only whether a key is set, never the key", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    await waitFor(() => expect(screen.getByText("fast")).toBeTruthy());
    const row = (name: string) => document.querySelector(`[data-model="${name}"]`)!.textContent!;
    expect(row("local")).toContain("needs no key");
    expect(row("fast")).toContain("key set (in the keyring)");
    expect((screen.getByLabelText("API key (openai)") as HTMLInputElement).value).toBe("");
  });

  it("adds a model as the form describes it", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    fireEvent.change(screen.getByPlaceholderText("fast"), { target: { value: "writer" } });
    fireEvent.change(screen.getByPlaceholderText("gpt-4o-mini"), { target: { value: "claude-sonnet" } });
    fireEvent.change(screen.getByRole("combobox"), { target: { value: "anthropic" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Add model" })));
    expect(calls.log).toContainEqual(["put", "writer", { provider: "anthropic", model: "claude-sonnet" }]);
    expect(screen.getByRole("status").textContent).toBe("Added writer.");
  });

  it("takes a model's price as both halves, or none", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    fireEvent.change(screen.getByPlaceholderText("fast"), { target: { value: "priced" } });
    fireEvent.change(screen.getByPlaceholderText("gpt-4o-mini"), { target: { value: "gpt-4o-mini" } });
    fireEvent.change(screen.getByPlaceholderText("0.15"), { target: { value: "0.15" } });
    expect(screen.getByText("Give both prices, or neither.")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Add model" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByPlaceholderText("0.60"), { target: { value: "-1" } });
    expect(screen.getByText("A price is a number of dollars, 0 or more.")).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText("0.60"), { target: { value: "0.6" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Add model" })));
    expect(calls.log).toContainEqual(["put", "priced", { provider: "openai", model: "gpt-4o-mini", input_price: 0.15, output_price: 0.6 }]);
  });

  it("keeps a typed key in the keyring, clears the field, and can forget it", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const field = (await screen.findByLabelText("API key (openai)")) as HTMLInputElement;
    fireEvent.change(field, { target: { value: "sk-secret" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save key" })));
    expect(calls.log).toContainEqual(["key", "openai", "sk-secret"]);
    expect(field.value).toBe("");
    expect(document.body.textContent).not.toContain("sk-secret");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Forget key" })));
    expect(calls.log).toContainEqual(["forget", "openai"]);
  });

  it("makes a model the default, removes one, and asks each whether it answers", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    await screen.findByText("fast");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Make default" })));
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Remove" })));
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Check that they answer" })));
    expect(calls.log).toContainEqual(["default", "fast"]);
    expect(calls.log).toContainEqual(["remove", "fast"]);
    expect(calls.log).toContainEqual(["list", true]);
  });
});
