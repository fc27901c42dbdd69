// A tool server's environment variables and headers as the add form sends them
// (valuesOf, specOf) and kept values shown again (rowsOf): what is left out, what is kept as typed, and each refusal in
// words, without rendering anything.
import { describe, expect, it } from "vitest";
import { newRow, rowsOf, type ValueRow, valuesOf } from "./ServerValues";
import { specOf } from "./ToolServers";

const row = (part: Partial<ValueRow>): ValueRow => ({ ...newRow(), ...part });

describe("valuesOf", () => {
  it("leaves out rows with nothing typed, so an added but unused row sends nothing", () => {
    expect(valuesOf([], "variable")).toEqual({ values: null });
    expect(valuesOf([row({}), row({ text: "  " }), row({ from: "key", text: "left from Text" })], "variable")).toEqual({ values: null });
  });

  it("keeps text and a prefix as typed (the space after Bearer matters) and trims names", () => {
    const rows = [row({ name: " LOG_LEVEL ", text: " info" }), row({ name: "EMPTY" }), row({ name: "Authorization", from: "key", key: " search ", prefix: "Bearer " })];
    expect(valuesOf(rows, "header")).toEqual({ values: { LOG_LEVEL: " info", EMPTY: "", Authorization: { key: "search", prefix: "Bearer " } } });
    // A prefix of spaces only is no prefix.
    expect(valuesOf([row({ name: "API_TOKEN", from: "key", key: "notes", prefix: " " })], "variable")).toEqual({ values: { API_TOKEN: { key: "notes" } } });
  });

  it("says in words why rows cannot be sent", () => {
    expect(valuesOf([row({ text: "info" })], "variable")).toEqual({ problem: "Each variable needs a name." });
    expect(valuesOf([row({ from: "key", prefix: "Bearer " })], "header")).toEqual({ problem: "Each header needs a name." });
    expect(valuesOf([row({ name: "API_TOKEN", from: "key" })], "variable")).toEqual({ problem: "API_TOKEN needs the name of its saved key." });
    // Headers ignore case (HTTP does), variables do not.
    expect(valuesOf([row({ name: "Accept", text: "a" }), row({ name: "accept", text: "b" })], "header")).toEqual({
      problem: "Each header needs its own name: accept is there twice.",
    });
    expect(valuesOf([row({ name: "Path", text: "a" }), row({ name: "PATH", text: "b" })], "variable")).toEqual({ values: { Path: "a", PATH: "b" } });
  });
});

describe("rowsOf", () => {
  it("turns kept values back into rows that valuesOf sends as they were", () => {
    const kept = { "x-team": "crew", Authorization: { key: "langfuse", prefix: "Basic " }, "x-key": { key: "phoenix" } };
    const rows = rowsOf(kept);
    expect(rows.map(({ name, from, text, key, prefix }) => ({ name, from, text, key, prefix }))).toEqual([
      { name: "x-team", from: "text", text: "crew", key: "", prefix: "" },
      { name: "Authorization", from: "key", text: "", key: "langfuse", prefix: "Basic " },
      { name: "x-key", from: "key", text: "", key: "phoenix", prefix: "" },
    ]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    expect(valuesOf(rows, "header")).toEqual({ values: kept });
    expect(rowsOf(undefined)).toEqual([]);
  });
});

describe("specOf", () => {
  const env = [row({ name: "LOG_LEVEL", text: "info" })];
  const headers = [row({ name: "Authorization", from: "key", key: "search", prefix: "Bearer " })];

  it("sends only the rows of the way the server is reached", () => {
    expect(specOf({ kind: "command", command: " npx ", args: "-y\n x ", url: "https://a.example", env, headers })).toEqual({
      spec: { command: "npx", args: ["-y", "x"], env: { LOG_LEVEL: "info" } },
    });
    expect(specOf({ kind: "url", command: "npx", args: "", url: " https://a.example/mcp ", env, headers })).toEqual({
      spec: { url: "https://a.example/mcp", headers: { Authorization: { key: "search", prefix: "Bearer " } } },
    });
  });

  it("has no env or headers when no row is filled, and passes a row's problem on", () => {
    expect(specOf({ kind: "url", command: "", args: "", url: "https://a.example/mcp", env, headers: [row({})] })).toEqual({ spec: { url: "https://a.example/mcp" } });
    expect(specOf({ kind: "command", command: "npx", args: "", url: "", env: [row({ text: "info" })], headers })).toEqual({ problem: "Each variable needs a name." });
  });
});
