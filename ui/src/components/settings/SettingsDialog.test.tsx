// @vitest-environment jsdom
// Settings against a stand-in backend: what the list shows (never a key) and what
// each model's check found, in words; what adding or changing a model (its context
// window and longest reply too), checking it, saving or forgetting a key, choosing
// the default and removing ask of it; the model servers found, and where to look;
// the tool servers; and Traces: what is saved, refusals beside their field, the
// status in words, the environment deciding.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelView } from "../../bindings/ModelView";
import type { TraceSettings } from "../../bindings/TraceSettings";
import type { TracesView } from "../../bindings/TracesView";
import { sizeProblem } from "./ModelForm";
import { SettingsDialog } from "./SettingsDialog";
import { problemWords, refusalOf, statusLines } from "./Traces";

const calls = vi.hoisted(() => ({
  log: [] as unknown[][],
  models: [] as ModelView[],
  servers: [] as { name: string; spec: unknown; summary: string; log: null }[],
  traces: null as unknown as TracesView,
  // What set_traces answers (the settings as saved, a status), or refuses with.
  setTraces: null as unknown as (settings: TraceSettings) => TracesView,
}));

const checked: ModelView["check"] = {
  answers: true,
  context_window: 8192,
  context_source: "reported by llama.cpp",
  streaming: true,
  tools: false,
  structured: true,
  first_token_ms: 250,
  tokens_per_second: 60,
  checked_at: Date.UTC(2026, 0, 5, 10, 30),
};

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
    checkModel: async (name: string) => {
      calls.log.push(["check", name]);
      calls.models = calls.models.map((m) => (m.name === name ? { ...m, check: checked } : m));
      return checked;
    },
    discoverModels: async () => [{ kind: "Ollama", base_url: "http://127.0.0.1:11434/v1", models: ["qwen2.5:7b"] }],
    modelServers: async () => ["127.0.0.1:11434"],
    setModelServers: async (addresses: string[]) => void calls.log.push(["addresses", addresses]),
    listToolServers: async () => calls.servers,
    putToolServer: async (name: string, spec: { command?: string; args?: string[] }) => {
      calls.log.push(["put-server", name, spec]);
      const view = { name, spec, summary: [spec.command, ...(spec.args ?? [])].join(" "), log: null };
      calls.servers = [...calls.servers, view];
      return view;
    },
    removeToolServer: async (name: string) => {
      calls.log.push(["remove-server", name]);
      calls.servers = calls.servers.filter((s) => s.name !== name);
    },
    checkToolServer: async (name: string) => ({
      name,
      running: true,
      tools: [{ name: `${name}.read_text_file`, description: "Reads a file", read_only: true }],
      error: null,
      log: `/data/tool-logs/${name}.log`,
    }),
    traces: async () => calls.traces,
    setTraces: async (settings: TraceSettings) => {
      calls.log.push(["set-traces", settings]);
      calls.traces = calls.setTraces(settings);
      return calls.traces;
    },
    importToolServers: async (text: string) => {
      calls.log.push(["import", text]);
      return { added: ["time"], notes: ["time: the environment variable TZ is kept in the OS keyring as 'mcp-time-tz'"] };
    },
  },
}));

const local: ModelView = { name: "local", provider: "local", model: "SmolLM2", base_url: "", default: true, key: null, key_name: null, reachable: null, problem: null, chosen: false };
const fast: ModelView = { name: "fast", provider: "openai", model: "gpt-4o-mini", base_url: "https://api.openai.com/v1", default: false, key: "keyring", key_name: "openai", reachable: null, problem: null, chosen: true };

const off: TracesView = {
  settings: { enabled: false, capture_content: false },
  status: { active: false, source: null, endpoint: null, capture_content: false, exported: 0n, dropped: 0n, failed: 0n, problem: null },
};

/** The status set_traces answers for saved settings, as the engine works it out. */
const statusOf = (settings: TraceSettings): TracesView => ({
  settings,
  status: settings.enabled
    ? { ...off.status, active: true, source: "settings", endpoint: `${settings.endpoint}/v1/traces`, capture_content: settings.capture_content }
    : off.status,
});

beforeEach(() => {
  calls.log = [];
  calls.models = [local, fast];
  calls.servers = [];
  calls.traces = off;
  calls.setTraces = statusOf;
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

  it("says what each model's last check found, in words, and Check asks again", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    await screen.findByText("fast");
    const row = (name: string) => document.querySelector(`[data-model="${name}"]`)!;
    expect(row("fast").textContent).toContain("Not checked yet: Check asks it a few questions to see what it can do.");
    const check = row("fast").querySelector("button")!;
    expect(check.textContent).toBe("Check");
    await act(async () => fireEvent.click(check));
    expect(calls.log).toContainEqual(["check", "fast"]);
    await waitFor(() =>
      expect(row("fast").querySelector(".settings-model-check")!.textContent).toMatch(
        /^When checked \(.+\), it answers · 8,192-token window \(reported by llama\.cpp\) · streams its replies · cannot call tools · gives structured answers · first words after 0\.3 s · 60 tokens a second\.$/,
      ),
    );
  });

  it("changes a model with Edit, its context window and longest reply too", async () => {
    calls.models = [local, { ...fast, context_window: 128000, max_tokens: 1024 }];
    render(<SettingsDialog onClose={() => {}} />);
    await screen.findByText("fast");
    expect(document.querySelector('[data-model="fast"]')!.textContent).toContain("128,000-token window (as set here) · replies of 1,024 tokens at most");
    fireEvent.click(screen.getByRole("button", { name: "Edit" }));
    const form = screen.getByRole("form", { name: "Change fast" });
    expect((form.querySelector('input[name="model-name"]') as HTMLInputElement).disabled).toBe(true);
    expect((form.querySelector('input[name="context-window"]') as HTMLInputElement).value).toBe("128000");
    fireEvent.change(form.querySelector('input[name="max-tokens"]')!, { target: { value: "2048" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save changes" })));
    expect(calls.log).toContainEqual([
      "put",
      "fast",
      { provider: "openai", model: "gpt-4o-mini", base_url: "https://api.openai.com/v1", key_name: "openai", context_window: 128000, max_tokens: 2048 },
    ]);
    expect(screen.getByRole("form", { name: "Add a model" })).toBeTruthy();
  });

  it("checks a context window and a longest reply as they are typed", () => {
    expect(sizeProblem("", "")).toBeNull();
    expect(sizeProblem("8,192", "512")).toBeNull();
    expect(sizeProblem("100", "")).toBe("The context window is a whole number of tokens, from 256 to 10,000,000.");
    expect(sizeProblem("8192.5", "")).toMatch(/whole number/);
    expect(sizeProblem("", "0")).toBe("The longest reply is a whole number of tokens, 1 or more.");
    expect(sizeProblem("4096", "4096")).toMatch(/smaller than the context window/);
  });

  it("lists the model servers found on this computer, with Use, and where it looks", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const servers = await screen.findByRole("region", { name: "Model servers on this computer" });
    await waitFor(() => expect(servers.textContent).toContain("Ollama at 127.0.0.1:11434"));
    expect(servers.textContent).toContain("qwen2.5:7b");
    expect(screen.getByRole("button", { name: "Use" })).toBeTruthy();
    const where = screen.getByLabelText("Addresses to look at") as HTMLInputElement;
    expect(where.value).toBe("127.0.0.1:11434");
    expect(where.closest("details")!.open).toBe(true);
  });
});

describe("Settings · tool servers", () => {
  it("adds a program with its arguments one per line, checks it and lists its tools, and removes it", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const form = await screen.findByRole("form", { name: "Add a tool server" });
    fireEvent.change(within(form).getByLabelText(/^Name/), { target: { value: "files" } });
    fireEvent.change(within(form).getByLabelText("Command"), { target: { value: "npx" } });
    fireEvent.change(within(form).getByLabelText("Arguments, one per line"), { target: { value: "-y\n @modelcontextprotocol/server-filesystem \n\n/home/ana/notes" } });
    await act(async () => {
      fireEvent.click(within(form).getByRole("button", { name: "Add" }));
    });
    expect(calls.log).toContainEqual(["put-server", "files", { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/ana/notes"] }]);
    const list = screen.getByRole("list", { name: "Tool servers" });
    expect(list.textContent).toContain("npx -y @modelcontextprotocol/server-filesystem /home/ana/notes");
    await act(async () => {
      fireEvent.click(within(list).getByRole("button", { name: "Check" }));
    });
    expect(list.textContent).toContain("Running · 1 tool: read_text_file");
    expect(list.textContent).toContain("Its log: /data/tool-logs/files.log");
    await act(async () => {
      fireEvent.click(within(list).getByRole("button", { name: "Remove" }));
    });
    expect(calls.log).toContainEqual(["remove-server", "files"]);
  });

  // A row of the variables or headers editor, found by its accessible name ("Variable API_TOKEN").
  const row = (form: HTMLElement, name: string) => within(form).getByRole("group", { name });
  const fill = (scope: HTMLElement, label: string | RegExp, value: string) => fireEvent.change(within(scope).getByLabelText(label), { target: { value } });

  it("adds a program with a text variable and a saved-key variable, as the crew file writes them", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const form = await screen.findByRole("form", { name: "Add a tool server" });
    fill(form, /^Name/, "notes");
    fill(form, "Command", "npx");
    fill(form, "Arguments, one per line", "-y\nnotes-server");
    fireEvent.click(within(form).getByRole("button", { name: "Add variable" }));
    fireEvent.click(within(form).getByRole("button", { name: "Add variable" }));
    const [first, second] = within(form).getAllByRole("group", { name: /^Variable / });
    fill(first, "Name", "LOG_LEVEL");
    fill(first, "Text", "info");
    fill(second, "Name", "API_TOKEN");
    fill(second, "Its value is", "key");
    // A variable's key has no prefix: only a header's does.
    expect(within(second).queryByLabelText("Written before the key (optional)")).toBeNull();
    fill(second, "Saved key's name", "notes_token");
    await act(async () => {
      fireEvent.click(within(form).getByRole("button", { name: "Add" }));
    });
    expect(calls.log).toContainEqual([
      "put-server",
      "notes",
      { command: "npx", args: ["-y", "notes-server"], env: { LOG_LEVEL: "info", API_TOKEN: { key: "notes_token" } } },
    ]);
    // The form is empty again for the next server.
    expect(within(form).queryAllByRole("group", { name: /^Variable / })).toEqual([]);
  });

  it("adds a web address with an Authorization header from a saved key, written after Bearer", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const form = await screen.findByRole("form", { name: "Add a tool server" });
    fill(form, /^Name/, "search");
    fireEvent.click(within(form).getByRole("radio", { name: "A web address" }));
    fill(form, "Web address", "https://search.example.com/mcp");
    fireEvent.click(within(form).getByRole("button", { name: "Add header" }));
    const header = within(form).getByRole("group", { name: /^Header / });
    fill(header, "Name", "Authorization");
    expect(within(header).queryByLabelText("Written before the key (optional)")).toBeNull();
    fill(header, "Its value is", "key");
    fill(header, "Written before the key (optional)", "Bearer ");
    fill(header, "Saved key's name", "search");
    await act(async () => {
      fireEvent.click(within(form).getByRole("button", { name: "Add" }));
    });
    expect(calls.log).toContainEqual(["put-server", "search", { url: "https://search.example.com/mcp", headers: { Authorization: { key: "search", prefix: "Bearer " } } }]);
  });

  it("refuses a variable with a value but no name, in words, and sends nothing", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const form = await screen.findByRole("form", { name: "Add a tool server" });
    fill(form, /^Name/, "notes");
    fill(form, "Command", "npx");
    fireEvent.click(within(form).getByRole("button", { name: "Add variable" }));
    fill(row(form, "Variable 1 (no name yet)"), "Text", "info");
    expect(within(form).getByText("Each variable needs a name.")).toBeTruthy();
    expect((within(form).getByRole("button", { name: "Add" }) as HTMLButtonElement).disabled).toBe(true);
    // Enter in a field submits the form even with Add disabled: still nothing is sent.
    await act(async () => {
      fireEvent.submit(form);
    });
    expect(calls.log.filter(([what]) => what === "put-server")).toEqual([]);
  });

  it("removes a row by its name, and a removed row is not sent", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const form = await screen.findByRole("form", { name: "Add a tool server" });
    fill(form, /^Name/, "notes");
    fill(form, "Command", "npx");
    fireEvent.click(within(form).getByRole("button", { name: "Add variable" }));
    fireEvent.click(within(form).getByRole("button", { name: "Add variable" }));
    fireEvent.click(within(form).getByRole("button", { name: "Add variable" }));
    const [first, second] = within(form).getAllByRole("group", { name: /^Variable / });
    fill(first, "Name", "API_TOKEN");
    fill(first, "Text", "typed by mistake");
    fill(second, "Name", "LOG_LEVEL");
    fill(second, "Text", "info");
    fill(row(form, "Variable 3 (no name yet)"), "Text", "stray");
    expect(within(form).getByText("Each variable needs a name.")).toBeTruthy();
    fireEvent.click(within(form).getByRole("button", { name: "Remove variable API_TOKEN" }));
    fireEvent.click(within(form).getByRole("button", { name: "Remove variable 2 (no name yet)" }));
    expect(within(form).getAllByRole("group", { name: /^Variable / }).map((g) => g.getAttribute("aria-label"))).toEqual(["Variable LOG_LEVEL"]);
    expect(within(form).queryByText("Each variable needs a name.")).toBeNull();
    await act(async () => {
      fireEvent.click(within(form).getByRole("button", { name: "Add" }));
    });
    expect(calls.log).toContainEqual(["put-server", "notes", { command: "npx", args: [], env: { LOG_LEVEL: "info" } }]);
  });

  it("imports an mcpServers file and says where its values went", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    fireEvent.click(await screen.findByRole("button", { name: "Import from Claude Desktop, Cursor or VS Code…" }));
    const text = '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "Europe/Paris"}}}}';
    fireEvent.change(screen.getByLabelText(/Paste the file's text/), { target: { value: text } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Import" }));
    });
    expect(calls.log).toContainEqual(["import", text]);
    expect(screen.getByText("Imported time.")).toBeTruthy();
    expect(screen.getByText("time: the environment variable TZ is kept in the OS keyring as 'mcp-time-tz'")).toBeTruthy();
  });
});

describe("Settings · traces", () => {
  const traces = () => screen.findByRole("form", { name: "Traces" });
  const fill = (scope: HTMLElement, label: string | RegExp, value: string) => fireEvent.change(within(scope).getByLabelText(label), { target: { value } });
  const status = (form: HTMLElement) => form.querySelector(".settings-traces-status")!.textContent;

  it("is off by default, and saves the switch, the address, a saved-key header and content capture as set_traces takes them", async () => {
    render(<SettingsDialog onClose={() => {}} />);
    const form = await traces();
    const send = within(form).getByRole("switch", { name: "Send traces of every run" }) as HTMLInputElement;
    const content = within(form).getByRole("switch", { name: "Include prompts and replies" }) as HTMLInputElement;
    await waitFor(() => expect(status(form)).toBe("Traces are off: runs are not sent anywhere."));
    expect(send.checked).toBe(false);
    expect(content.checked).toBe(false);
    // The hint names the usual collectors' addresses and where the set-ups are told.
    expect(form.textContent).toContain("http://127.0.0.1:6006");
    expect(form.textContent).toContain("docs/observability.md");
    fireEvent.click(send);
    fill(form, "The collector's address", " https://cloud.langfuse.com/api/public/otel ");
    fireEvent.click(within(form).getByRole("button", { name: "Add header" }));
    const header = within(form).getByRole("group", { name: /^Header / });
    fill(header, "Name", "Authorization");
    fill(header, "Its value is", "key");
    fill(header, "Written before the key (optional)", "Basic ");
    fill(header, "Saved key's name", "langfuse");
    // Turning content capture on says plainly what then leaves the computer.
    expect(form.textContent).not.toContain("leaves this computer");
    fireEvent.click(content);
    expect(form.textContent).toContain("leaves this computer with the traces");
    await act(async () => fireEvent.click(within(form).getByRole("button", { name: "Save" })));
    expect(calls.log).toContainEqual([
      "set-traces",
      { enabled: true, endpoint: "https://cloud.langfuse.com/api/public/otel", headers: { Authorization: { key: "langfuse", prefix: "Basic " } }, capture_content: true },
    ]);
    expect(status(form)).toContain("Runs started now send their trace to https://cloud.langfuse.com/api/public/otel/v1/traces.");
    expect(status(form)).toContain("Nothing sent yet");
    expect(within(form).getByRole("status").textContent).toBe("Saved: runs started from now on follow it.");
  });

  it("shows what was kept when it opens again, the header's key as a saved key", async () => {
    calls.traces = statusOf({ enabled: true, endpoint: "http://127.0.0.1:6006", headers: { "x-team": "crew", Authorization: { key: "phoenix" } }, capture_content: false });
    render(<SettingsDialog onClose={() => {}} />);
    const form = await traces();
    await waitFor(() => expect((within(form).getByLabelText("The collector's address") as HTMLInputElement).value).toBe("http://127.0.0.1:6006"));
    expect((within(form).getByRole("switch", { name: "Send traces of every run" }) as HTMLInputElement).checked).toBe(true);
    const team = within(form).getByRole("group", { name: "Header x-team" });
    expect((within(team).getByLabelText("Text") as HTMLInputElement).value).toBe("crew");
    const auth = within(form).getByRole("group", { name: "Header Authorization" });
    expect((within(auth).getByLabelText("Its value is") as HTMLSelectElement).value).toBe("key");
    expect((within(auth).getByLabelText("Saved key's name") as HTMLInputElement).value).toBe("phoenix");
    // Saved again untouched, it is the same.
    await act(async () => fireEvent.click(within(form).getByRole("button", { name: "Save" })));
    expect(calls.log).toContainEqual(["set-traces", calls.traces.settings]);
  });

  it("says a refused address beside the address field, in words, and keeps what was typed", async () => {
    calls.setTraces = () => {
      throw new Error("the traces endpoint '127.0.0.1:6006' is not an http:// or https:// URL");
    };
    render(<SettingsDialog onClose={() => {}} />);
    const form = await traces();
    fireEvent.click(within(form).getByRole("switch", { name: "Send traces of every run" }));
    fill(form, "The collector's address", "127.0.0.1:6006");
    await act(async () => fireEvent.click(within(form).getByRole("button", { name: "Save" })));
    const address = within(form).getByLabelText("The collector's address") as HTMLInputElement;
    expect(address.value).toBe("127.0.0.1:6006");
    expect(address.getAttribute("aria-invalid")).toBe("true");
    const refusal = address.closest(".field")!.querySelector(".field-error")!;
    expect(refusal.textContent).toBe("“127.0.0.1:6006” is not a web address: it starts with http:// or https:// (Phoenix: http://127.0.0.1:6006).");
    expect(address.getAttribute("aria-describedby")).toBe(refusal.id);
  });

  it("says how it is going: spans sent, dropped because the collector did not keep up, the last problem in words", async () => {
    calls.traces = {
      settings: { enabled: true, endpoint: "http://127.0.0.1:4318", capture_content: false },
      status: {
        active: true,
        source: "settings",
        endpoint: "http://127.0.0.1:4318/v1/traces",
        capture_content: false,
        exported: 1204n,
        dropped: 38n,
        failed: 512n,
        dropped_events: 2500n,
        problem: "HTTP export failed: error sending request for url (http://127.0.0.1:4318/v1/traces): tcp connect error: Connection refused (os error 111)",
      },
    };
    render(<SettingsDialog onClose={() => {}} />);
    const form = await traces();
    await waitFor(() => expect(status(form)).toContain("So far 1,204 spans sent · 38 spans dropped because the collector did not keep up · 512 spans not taken by the collector."));
    expect(status(form)).toContain("2,500 events of runs were left out because the traces could not be sent as fast as the runs went: those runs' traces end early.");
    expect(status(form)).toContain("The collector could not be reached: is it running, and is the address right?");
    // The exact message stays there for whoever wants it.
    expect(status(form)).toContain("Connection refused (os error 111)");
  });

  it("says when the environment variable decides, with the address and headers disabled until the switch is on", async () => {
    calls.traces = {
      settings: { enabled: false, endpoint: "http://127.0.0.1:6006", capture_content: false },
      status: { ...off.status, active: true, source: "environment", endpoint: "http://collector:4318/v1/traces", capture_content: true },
    };
    render(<SettingsDialog onClose={() => {}} />);
    const form = await traces();
    await waitFor(() => expect(form.textContent).toContain("The environment variable OTEL_EXPORTER_OTLP_ENDPOINT"));
    expect(form.textContent).toContain("every run's trace goes to http://collector:4318/v1/traces");
    // (Disabled by their fieldset: the elements' own `disabled` stays false.)
    expect(within(form).getByLabelText("The collector's address").matches(":disabled")).toBe(true);
    expect(within(form).getByRole("button", { name: "Add header" }).matches(":disabled")).toBe(true);
    expect(status(form)).toContain("the environment variable OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says so");
    fireEvent.click(within(form).getByRole("switch", { name: "Send traces of every run" }));
    expect(within(form).getByLabelText("The collector's address").matches(":disabled")).toBe(false);
  });
});

describe("Settings · traces' words", () => {
  it("places each refusal of set_traces beside its field", () => {
    expect(refusalOf("traces are on but no endpoint is given (here, or in OTEL_EXPORTER_OTLP_ENDPOINT)")).toEqual({
      field: "endpoint",
      words: "Write the collector's address to send traces (or turn them off).",
    });
    expect(refusalOf("'x team' is not a header name")).toEqual({ field: "headers", words: "“x team” is not a header name: letters, digits, - and _ only." });
    expect(refusalOf("the stored settings cannot be written")).toEqual({ field: "form", words: "The stored settings cannot be written" });
  });

  it("says the status' problems as a person would", () => {
    expect(problemWords("the traces header Authorization needs the key 'langfuse', and it is in neither the OS keyring entry 'langfuse' or …")).toBe(
      "The header Authorization needs the saved key “langfuse”, and it is neither in the OS keyring nor in the environment. Save it on this computer with crewgraph keys set langfuse.",
    );
    expect(problemWords("no answer within 30 s")).toMatch(/^The collector did not answer within 30 seconds/);
    expect(problemWords("HTTP export failed. Status Code: 401, Response: unauthorized")).toMatch(/refused the spans/);
    expect(problemWords("HTTP export failed. Status Code: 404")).toMatch(/not found/);
    // What the exporter says when nothing listens at the address.
    expect(problemWords("Operation failed: HTTP export failed: network error")).toBe("The collector could not be reached: is it running, and is the address right?");
    expect(problemWords("something else")).toBe("The collector did not take the spans.");
    expect(statusLines({ ...off, status: { ...off.status, problem: "no endpoint" } })).toEqual(["Runs are not traced."]);
  });
});
