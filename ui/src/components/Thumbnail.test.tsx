// @vitest-environment jsdom
import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { examGraph } from "../graph/fixtures";
import { Thumbnail } from "./Thumbnail";

afterEach(cleanup);

describe("Thumbnail", () => {
  it("draws the graph once laid out, and at once when shown again", async () => {
    const first = render(<Thumbnail graph={examGraph} />);
    expect(first.container.querySelector(".thumbnail.empty")).not.toBeNull();
    await waitFor(() => expect(first.container.querySelectorAll("svg.thumbnail rect.thumb-node").length).toBe(4));
    first.unmount();

    // Back on the start view: the first render already has the picture.
    const again = render(<Thumbnail graph={examGraph} />);
    expect(again.container.querySelector(".thumbnail.empty")).toBeNull();
    expect(again.container.querySelectorAll("svg.thumbnail rect.thumb-node").length).toBe(4);
  });
});
