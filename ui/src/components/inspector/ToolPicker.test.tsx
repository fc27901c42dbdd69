// @vitest-environment jsdom
// The tool picker against a stand-in backend: the built-in tools and each server's,
// grouped, with what each does; a server that cannot start says why; ticking a tool
// and choosing when it is called; search.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultPolicy, matching, ToolPicker } from "./ToolPicker";

const asked = vi.hoisted(() => ({ servers: [] as unknown[] }));

vi.mock("../../backend", () => ({
  backend: {
    crewTools: async (servers: unknown) => {
      asked.servers.push(servers);
      return [
        {
          server: "files",
          origin: "crew",
          error: null,
          tools: [
            { name: "files.read_text_file", description: "Reads a text file", read_only: true },
            { name: "files.write_file", description: "Writes a file", read_only: false },
          ],
        },
        { server: "search", origin: "app", error: "the tool server 'search' could not start: the command 'uvx' was not found (is it installed?)", tools: [] },
      ];
    },
  },
}));

afterEach(cleanup);

describe("ToolPicker", () => {
  it("lists every tool by server, ticks them, and says when each is called", async () => {
    const toggled: [string, boolean][] = [];
    const ruled: [string, string | null][] = [];
    const servers = { files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/notes"] } };
    await act(async () => {
      render(
        <ToolPicker
          chosen={["files.write_file"]}
          policies={{}}
          crewServers={servers}
          onToggle={(tool, on) => toggled.push([tool, on])}
          onPolicy={(tool, policy) => ruled.push([tool, policy])}
        />,
      );
    });
    expect(asked.servers).toEqual([servers]);
    const groups = screen.getAllByRole("group").filter((g) => g.tagName === "FIELDSET");
    expect(groups.map((g) => g.querySelector("legend")?.textContent)).toEqual(["Built in", "files · this crew's server", "search · from Settings"]);
    expect(groups[2].textContent).toContain("could not start: the command 'uvx' was not found");
    const files = groups[1];
    expect(files.textContent).toContain("Reads a text file");
    fireEvent.click(within(files).getByRole("checkbox", { name: "read_text_file" }));
    expect(toggled).toEqual([["files.read_text_file", true]]);
    // A ticked tool that changes things asks first unless told otherwise.
    const when = within(files).getByRole("combobox", { name: "When write_file is called" }) as HTMLSelectElement;
    expect(when.selectedOptions[0].textContent).toBe("Asks you first (the usual)");
    fireEvent.change(when, { target: { value: "allow" } });
    expect(ruled).toEqual([["files.write_file", "allow"]]);
    fireEvent.change(screen.getByRole("searchbox", { name: "Search the tools" }), { target: { value: "arithmetic" } });
    expect(screen.getAllByRole("checkbox").map((c) => c.parentElement?.textContent?.trim())).toEqual(["calculator"]);
  });

  it("finds tools by name, description or server, and knows the usual rule", () => {
    const groups = [{ server: "files", origin: "crew", error: null, tools: [{ name: "files.read_text_file", description: "Reads", read_only: true }] }];
    expect(matching(groups, "FILES")).toHaveLength(1);
    expect(matching(groups, "reads")[0].tools).toHaveLength(1);
    expect(matching(groups, "write")).toEqual([]);
    expect(defaultPolicy({ name: "x.w", description: "", read_only: false }, false)).toBe("ask");
    expect(defaultPolicy({ name: "calculator", description: "", read_only: false }, true)).toBe("allow");
  });
});
