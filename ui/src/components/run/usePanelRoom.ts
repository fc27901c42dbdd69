// How tall a panel below the canvas (the run dock, the problems list) may be: it
// and the canvas share their height, and the canvas keeps its floor (run/layout.ts:
// half the window). Measured from the window as drawn, again whenever the window,
// the canvas or the panel changes size.
import { type RefObject, useEffect, useState } from "react";
import { panelRoom } from "../../run/layout";

export function usePanelRoom(panel: RefObject<HTMLElement | null>, least: number): number {
  const [room, setRoom] = useState(Number.POSITIVE_INFINITY);
  useEffect(() => {
    const element = panel.current;
    const view = element?.closest<HTMLElement>(".crew-view");
    const canvas = view?.querySelector<HTMLElement>(".canvas");
    if (!element || !view || !canvas) return;
    const measure = () => setRoom(panelRoom(canvas.clientHeight + element.offsetHeight, view.clientHeight, least));
    measure();
    window.addEventListener("resize", measure);
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(measure);
    observer?.observe(view);
    observer?.observe(canvas);
    observer?.observe(element);
    return () => {
      window.removeEventListener("resize", measure);
      observer?.disconnect();
    };
  }, [panel, least]);
  return room;
}
