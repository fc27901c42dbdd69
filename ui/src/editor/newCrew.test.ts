import { describe, expect, it } from "vitest";
import { emptyCrew } from "./newCrew";

describe("emptyCrew", () => {
  it("is a named crew with no agents and no empty description", () => {
    expect(emptyCrew("Book club")).toEqual({ version: "1.0", name: "Book club", agents: [] });
    expect(Object.keys(emptyCrew("Book club", "Reads together"))).toEqual(["version", "name", "description", "agents"]);
    expect(emptyCrew("  ").name).toBe("New crew");
  });
});
