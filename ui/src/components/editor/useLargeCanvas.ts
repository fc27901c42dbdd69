// While the canvas shows the cards of a crew large enough to be painted far out
// (FarView), the window is told, so that where it paints without a GPU it
// composites the page for as long (painting.rs in the shell, BENCHMARKS.md "The
// window without a GPU"): zooming among so many cards is a compositor's job, while
// everything else — that crew zoomed far out too, one picture — is quicker painted
// whole. A browser paints as it likes; there it does nothing.
import { useEffect } from "react";
import { backend } from "../../backend";

export function useLargeCanvas(large: boolean): void {
  useEffect(() => {
    if (!large) return;
    backend.largeCanvas(true);
    return () => backend.largeCanvas(false);
  }, [large]);
}
