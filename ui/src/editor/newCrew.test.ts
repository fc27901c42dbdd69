import { describe, expect, it } from "vitest";
import { emptyCrew } from "./newCrew";

describe("emptyCrew", () => {
  it("is a named crew with no agents, no empty description, and room for a revise loop", () => {
    expect(emptyCrew("Book club")).toEqual({ version: "1.0", name: "Book club", max_handoffs: 12, agents: [] });
    expect(Object.keys(emptyCrew("Book club", "Reads together"))).toEqual(["version", "name", "description", "max_handoffs", "agents"]);
    expect(emptyCrew("  ").name).toBe("New crew");
  });
});
