// Settings · tool servers: the MCP servers every crew's agents can use. Each is a
// program to start (a command and its arguments) or a web address; Check starts it
// and lists its tools (or says why not, with its log); servers can be imported from
// the `mcpServers` file Claude Desktop, Cursor and VS Code keep. A program may be
// given environment variables and a web address headers (ServerValues). A token is
// never typed here: a value the server needs secret is kept in the OS keyring (the
// import puts it there) and the server names it.
import { type FormEvent, useCallback, useEffect, useId, useState } from "react";
import { backend } from "../../backend";
import type { ServerCheck } from "../../bindings/ServerCheck";
import type { ServerSpec } from "../../bindings/ServerSpec";
import type { ToolServerView } from "../../bindings/ToolServerView";
import { ServerValues, type ValueRow, valuesOf } from "./ServerValues";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The arguments as typed, one per line. */
export function argumentsOf(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** The add form as typed: how the server is reached, and the rows of each kind. */
export type ServerForm = { kind: "command" | "url"; command: string; args: string; url: string; env: ValueRow[]; headers: ValueRow[] };

/**
 * A server as the form describes it: a command with its arguments and environment
 * variables, or a web address with its headers (only the chosen kind's rows count);
 * or, when a row cannot be sent, why not.
 */
export function specOf(form: ServerForm): { spec: ServerSpec } | { problem: string } {
  if (form.kind === "command") {
    const env = valuesOf(form.env, "variable");
    if ("problem" in env) return env;
    return { spec: { command: form.command.trim(), args: argumentsOf(form.args), ...(env.values ? { env: env.values } : {}) } };
  }
  const headers = valuesOf(form.headers, "header");
  if ("problem" in headers) return headers;
  return { spec: { url: form.url.trim(), ...(headers.values ? { headers: headers.values } : {}) } };
}

export function ToolServers() {
  const id = useId();
  const [servers, setServers] = useState<ToolServerView[] | null>(null);
  const [checks, setChecks] = useState<Record<string, ServerCheck | "checking">>({});
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string[]>([]);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"command" | "url">("command");
  const [command, setCommand] = useState("");
  const [args, setArgs] = useState("");
  const [url, setUrl] = useState("");
  const [env, setEnv] = useState<ValueRow[]>([]);
  const [headers, setHeaders] = useState<ValueRow[]>([]);
  const [importing, setImporting] = useState(false);
  const [imported, setImported] = useState("");
  const described = specOf({ kind, command, args, url, env, headers });

  const load = useCallback(async () => {
    try {
      setServers(await backend.listToolServers());
    } catch (e) {
      setError(message(e));
    }
  }, []);
  useEffect(() => void load(), [load]);

  const check = async (server: string) => {
    setChecks((c) => ({ ...c, [server]: "checking" }));
    try {
      const found = await backend.checkToolServer(server);
      setChecks((c) => ({ ...c, [server]: found }));
    } catch (e) {
      setChecks((c) => ({ ...c, [server]: { name: server, running: false, tools: [], error: message(e), log: null } }));
    }
  };

  const add = async (event: FormEvent) => {
    event.preventDefault();
    if ("problem" in described) return;
    setError(null);
    try {
      const saved = await backend.putToolServer(name.trim(), described.spec);
      setNotice([`Added ${saved.name}. Check it to see its tools.`]);
      setName("");
      setCommand("");
      setArgs("");
      setUrl("");
      setEnv([]);
      setHeaders([]);
      await load();
    } catch (e) {
      setError(message(e));
    }
  };

  const remove = async (server: string) => {
    setError(null);
    try {
      await backend.removeToolServer(server);
      setNotice([`Removed ${server}.`]);
      await load();
    } catch (e) {
      setError(message(e));
    }
  };

  const runImport = async () => {
    setError(null);
    try {
      const done = await backend.importToolServers(imported);
      setNotice([done.added.length ? `Imported ${done.added.join(", ")}.` : "Nothing was imported.", ...done.notes]);
      setImported("");
      setImporting(false);
      await load();
    } catch (e) {
      setError(message(e));
    }
  };

  const canAdd = name.trim() !== "" && (kind === "command" ? command.trim() !== "" : url.trim() !== "") && !("problem" in described);

  return (
    <section className="settings-tools" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Tool servers</h3>
      <p className="field-help">
        Programs that give agents tools: reading a folder, searching, telling the time (the Model Context Protocol). Every crew's agents
        can use them; pick a tool in an agent's form.
      </p>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {notice.length > 0 && !error && (
        <div className="field-help" role="status">
          {notice.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
      {servers && servers.length === 0 && <p className="field-help">No tool servers yet.</p>}
      <ul className="settings-models" aria-label="Tool servers">
        {(servers ?? []).map((server) => {
          const found = checks[server.name];
          return (
            <li key={server.name} className="settings-model" data-server={server.name}>
              <div className="settings-model-head">
                <strong>{server.name}</strong>
                <span className="muted settings-tool-summary">{server.summary}</span>
              </div>
              {found === "checking" && <p className="field-help">Starting it and asking for its tools…</p>}
              {found && found !== "checking" && found.running && (
                <p className="settings-ok">
                  Running · {found.tools.length} {found.tools.length === 1 ? "tool" : "tools"}
                  {found.tools.length > 0 ? `: ${found.tools.map((t) => t.name.slice(server.name.length + 1)).join(", ")}` : ""}
                </p>
              )}
              {found && found !== "checking" && !found.running && <p className="field-error">{found.error}</p>}
              {found && found !== "checking" && found.log && <p className="field-help">Its log: {found.log}</p>}
              <div className="settings-model-actions">
                <button type="button" onClick={() => void check(server.name)} disabled={found === "checking"}>
                  Check
                </button>
                <button type="button" onClick={() => void remove(server.name)}>
                  Remove
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      <form className="settings-add" onSubmit={(e) => void add(e)} aria-label="Add a tool server">
        <h3>Add a tool server</h3>
        <label className="field">
          <span className="field-label">Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="files" />
          <span className="field-help">Agents name its tools with it: files.read_text_file. Letters, digits, - and _.</span>
        </label>
        <div className="settings-tool-kind" role="radiogroup" aria-label="How it is reached">
          <label>
            <input type="radio" name={`${id}-kind`} checked={kind === "command"} onChange={() => setKind("command")} /> A program on this
            computer
          </label>
          <label>
            <input type="radio" name={`${id}-kind`} checked={kind === "url"} onChange={() => setKind("url")} /> A web address
          </label>
        </div>
        {kind === "command" ? (
          <>
            <label className="field">
              <span className="field-label">Command</span>
              <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="npx" />
            </label>
            <label className="field">
              <span className="field-label">Arguments, one per line</span>
              <textarea rows={3} value={args} onChange={(e) => setArgs(e.target.value)} placeholder={"-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes"} />
            </label>
            <ServerValues noun="variable" rows={env} onChange={setEnv} />
          </>
        ) : (
          <>
            <label className="field">
              <span className="field-label">Web address</span>
              <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/mcp" />
            </label>
            <ServerValues noun="header" rows={headers} onChange={setHeaders} />
          </>
        )}
        {"problem" in described && (
          <p className="field-error" role="alert">
            {described.problem}
          </p>
        )}
        <div className="dialog-actions">
          <button type="submit" disabled={!canAdd}>
            Add
          </button>
          <button type="button" onClick={() => setImporting((open) => !open)} aria-expanded={importing}>
            Import from Claude Desktop, Cursor or VS Code…
          </button>
        </div>
      </form>
      {importing && (
        <div className="settings-add">
          <label className="field">
            <span className="field-label">Paste the file's text (it has "mcpServers")</span>
            <textarea rows={5} value={imported} onChange={(e) => setImported(e.target.value)} />
            <span className="field-help">Values it holds for the servers' environment go into the OS keyring, not into Crewgraph's files.</span>
          </label>
          <div className="dialog-actions">
            <button type="button" onClick={() => void runImport()} disabled={imported.trim() === ""}>
              Import
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
