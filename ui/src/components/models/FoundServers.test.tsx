// @vitest-environment jsdom
// The model servers found on this computer, against a stand-in backend: nothing
// found is said plainly with where to look instead; an address typed is looked at;
// Use adds the model, checks it and says what the check found, in words.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FoundServer } from "../../bindings/FoundServer";
import type { ModelCheck } from "../../bindings/ModelCheck";
import { resetModels } from "../../models/store";
import { FoundServers, parseAddresses } from "./FoundServers";

const fake = vi.hoisted(() => ({
  log: [] as unknown[][],
  servers: [] as FoundServer[],
  addresses: ["127.0.0.1:11434", "127.0.0.1:8080"],
  check: { answers: true, checked_at: 1 } as ModelCheck,
}));

vi.mock("../../backend", () => ({
  backend: {
    discoverModels: async () => {
      fake.log.push(["discover"]);
      return fake.servers;
    },
    modelServers: async () => fake.addresses,
    setModelServers: async (addresses: string[]) => {
      fake.log.push(["addresses", addresses]);
      fake.addresses = addresses;
    },
    listModels: async () => [{ name: "local", provider: "local", model: "SmolLM2", base_url: "", default: true, key: null, key_name: null, reachable: null, problem: null }],
    putModel: async (name: string, request: unknown) => void fake.log.push(["put", name, request]),
    removeModel: async (name: string) => void fake.log.push(["remove", name]),
    setDefaultModel: async (name: string) => void fake.log.push(["default", name]),
    checkModel: async (name: string) => {
      fake.log.push(["check", name]);
      return fake.check;
    },
  },
}));

const llama: FoundServer = { kind: "llama.cpp", base_url: "http://127.0.0.1:8080/v1", models: ["SmolLM2-135M-Instruct.Q4_1.gguf"] };

afterEach(cleanup);
beforeEach(() => {
  Object.assign(fake, { log: [], servers: [], addresses: ["127.0.0.1:11434", "127.0.0.1:8080"], check: { answers: true, checked_at: 1 } });
  resetModels();
});

describe("model servers found", () => {
  it("says plainly when nothing was found, and shows where it looked, to change", async () => {
    render(<FoundServers />);
    expect(await screen.findByText(/No model server is running where Crewgraph looked/)).toBeTruthy();
    const field = screen.getByLabelText("Addresses to look at") as HTMLInputElement;
    await waitFor(() => expect(field.value).toBe("127.0.0.1:11434, 127.0.0.1:8080"));
    // Opened once the page knows nothing was found (an effect, and the details' toggle
    // event, which jsdom dispatches a moment later): waited for, not assumed.
    await waitFor(() => expect(field.closest("details")!.open).toBe(true));
  });

  it("looks at the addresses typed, then lists what answers there with its models", async () => {
    render(<FoundServers />);
    const field = (await screen.findByLabelText("Addresses to look at")) as HTMLInputElement;
    await waitFor(() => expect(field.value).not.toBe(""));
    fake.servers = [llama];
    fireEvent.change(field, { target: { value: "127.0.0.1:8080 ,127.0.0.1:9999" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Look there" })));
    expect(fake.log).toContainEqual(["addresses", ["127.0.0.1:8080", "127.0.0.1:9999"]]);
    const server = await screen.findByText("llama.cpp");
    expect(server.closest("li")!.textContent).toContain("at 127.0.0.1:8080");
    expect(screen.getByText("SmolLM2-135M-Instruct.Q4_1.gguf")).toBeTruthy();
  });

  it("Use adds the model, checks it, makes it the default and says what it can do", async () => {
    fake.servers = [llama];
    fake.check = { answers: true, context_window: 8192, context_source: "reported by llama.cpp", tools: false, structured: true, checked_at: 1 };
    const used = vi.fn();
    render(<FoundServers onUsed={used} />);
    const use = await screen.findByRole("button", { name: "Use" });
    await act(async () => fireEvent.click(use));
    await waitFor(() => expect(used).toHaveBeenCalled());
    expect(fake.log.filter((c) => c[0] !== "discover").map((c) => c[0])).toEqual(["put", "check", "default"]);
    expect(screen.getByRole("status").textContent).toBe(
      "Agents now use smollm2-135m-instruct.q4_1. It answers · 8,192-token window (reported by llama.cpp) · cannot call tools · gives structured answers.",
    );
  });

  it("a model that does not answer is not added, and the check says why", async () => {
    fake.servers = [llama];
    fake.check = { answers: false, problem: "it answered with an empty reply", checked_at: 1 };
    render(<FoundServers />);
    const use = await screen.findByRole("button", { name: "Use" });
    await act(async () => fireEvent.click(use));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Not added: it does not answer: it answered with an empty reply"));
    expect(fake.log.at(-1)).toEqual(["remove", "smollm2-135m-instruct.q4_1"]);
  });

  it("reads addresses separated by commas, spaces or lines", () => {
    expect(parseAddresses(" a:1, b:2\nc:3  ")).toEqual(["a:1", "b:2", "c:3"]);
    expect(parseAddresses("  ")).toEqual([]);
  });
});
