// Settings · a tool server's named values: a program's environment variables or a
// web address's headers, one row each. A row is a name and either text as it is or a
// saved key (kept in the OS keyring or the environment, named here, never typed
// here), with, for a header, what is written before the key ("Bearer "). `valuesOf`
// turns the rows into the crew file's `env` / `headers` map, or says in words why
// it cannot; `rowsOf` turns a kept map back into rows (Settings · traces' headers).
import type { ServerValueSpec } from "../../bindings/ServerValueSpec";

/** One row as typed; `text` or `key` (and `prefix`) count, as `from` says. */
export type ValueRow = { id: number; name: string; from: "text" | "key"; text: string; key: string; prefix: string };

/** What the rows name: a program's environment variables, or a web address's headers. */
export type ValueNoun = "variable" | "header";

/** The rows as the backend takes them (null: none), or why they cannot be sent. */
export type ValuesOf = { values: Record<string, ServerValueSpec> | null } | { problem: string };

let lastRow = 0;

/** A new, empty row. */
export function newRow(): ValueRow {
  lastRow += 1;
  return { id: lastRow, name: "", from: "text", text: "", key: "", prefix: "" };
}

/** Rows for values kept before (a map of name → text or `{key, prefix?}`), in the
 * map's order: what the editor shows for settings that are being changed. */
export function rowsOf(values: Record<string, ServerValueSpec> | undefined): ValueRow[] {
  return Object.entries(values ?? {}).map(([name, value]) =>
    typeof value === "string"
      ? { ...newRow(), name, text: value }
      : { ...newRow(), name, from: "key" as const, key: value.key, prefix: value.prefix ?? "" },
  );
}

/** Nothing typed in the row's name or in the value it is set to use: it is left out. */
const isEmpty = (row: ValueRow) =>
  row.name.trim() === "" && (row.from === "text" ? row.text.trim() === "" : row.key.trim() === "" && row.prefix.trim() === "");

/**
 * The rows as a map of name → text or `{key, prefix?}`; empty rows are left out. A
 * row with a value but no name, a key row without the key's name, and a name given
 * twice (headers ignore case, as HTTP does) are problems. Text and prefix are kept as
 * typed: their spaces may matter ("Bearer ").
 */
export function valuesOf(rows: ValueRow[], noun: ValueNoun): ValuesOf {
  const values: Record<string, ServerValueSpec> = {};
  const seen = new Set<string>();
  for (const row of rows.filter((r) => !isEmpty(r))) {
    const name = row.name.trim();
    if (name === "") return { problem: `Each ${noun} needs a name.` };
    const same = noun === "header" ? name.toLowerCase() : name;
    if (seen.has(same)) return { problem: `Each ${noun} needs its own name: ${name} is there twice.` };
    seen.add(same);
    if (row.from === "text") {
      values[name] = row.text;
    } else {
      const key = row.key.trim();
      if (key === "") return { problem: `${name} needs the name of its saved key.` };
      values[name] = row.prefix.trim() === "" ? { key } : { key, prefix: row.prefix };
    }
  }
  return { values: Object.keys(values).length > 0 ? values : null };
}

type Props = {
  noun: ValueNoun;
  rows: ValueRow[];
  onChange: (rows: ValueRow[]) => void;
};

/** The rows editor: a name, Text or A saved key, its value; Add and Remove. */
export function ServerValues({ noun, rows, onChange }: Props) {
  const title = noun === "variable" ? "Environment variables" : "Headers";
  const change = (id: number, part: Partial<ValueRow>) => onChange(rows.map((row) => (row.id === id ? { ...row, ...part } : row)));
  return (
    <fieldset className="field settings-values">
      <legend className="field-label">{title} (optional)</legend>
      <span className="field-help">
        A secret (a token, a password) is never typed here: choose “A saved key” and keep it in the OS keyring (<code>crewgraph keys set NAME</code>)
        or the environment.
      </span>
      {rows.map((row, at) => {
        const named = row.name.trim() || `${at + 1} (no name yet)`;
        return (
          <div key={row.id} className="settings-value" role="group" aria-label={`${noun === "variable" ? "Variable" : "Header"} ${named}`}>
            <input
              value={row.name}
              onChange={(e) => change(row.id, { name: e.target.value })}
              aria-label="Name"
              placeholder={noun === "variable" ? "API_TOKEN" : "Authorization"}
              spellCheck={false}
            />
            <select value={row.from} onChange={(e) => change(row.id, { from: e.target.value === "key" ? "key" : "text" })} aria-label="Its value is">
              <option value="text">Text</option>
              <option value="key">A saved key</option>
            </select>
            {row.from === "text" ? (
              <input value={row.text} onChange={(e) => change(row.id, { text: e.target.value })} aria-label="Text" placeholder="info" spellCheck={false} />
            ) : (
              <>
                {noun === "header" && (
                  <input
                    className="settings-value-prefix"
                    value={row.prefix}
                    onChange={(e) => change(row.id, { prefix: e.target.value })}
                    aria-label="Written before the key (optional)"
                    title="Written before the key, as typed: “Bearer ” with its space"
                    placeholder="Bearer "
                    spellCheck={false}
                  />
                )}
                <input
                  value={row.key}
                  onChange={(e) => change(row.id, { key: e.target.value })}
                  aria-label="Saved key's name"
                  placeholder="notes_token"
                  spellCheck={false}
                  autoComplete="off"
                />
              </>
            )}
            <button
              type="button"
              onClick={() => onChange(rows.filter((r) => r.id !== row.id))}
              aria-label={`Remove ${noun} ${named}`}
              title={`Remove ${noun} ${named}`}
            >
              ×
            </button>
          </div>
        );
      })}
      <button type="button" className="settings-values-add" onClick={() => onChange([...rows, newRow()])}>
        {noun === "variable" ? "Add variable" : "Add header"}
      </button>
    </fieldset>
  );
}
