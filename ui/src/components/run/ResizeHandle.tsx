// The edge a panel is resized by: dragged up or down with the mouse (or a finger),
// or moved with the arrow keys once focused (Home: the panel's default height).
// It reports the height the person asks for; the panel keeps it within its room.
import type { KeyboardEvent, PointerEvent } from "react";
import { useRef } from "react";

type Props = {
  /** What it resizes, for a screen reader and the tooltip ("the run panel"). */
  label: string;
  /** The panel's height now, and the least and most it may take. */
  height: number;
  min: number;
  max: number;
  /** The height the person asks for while dragging (or with a key). */
  onResize: (height: number) => void;
  /** The drag (or key press) is over: the height to remember. */
  onDone: (height: number) => void;
  /** Home, or a double click: the default height. */
  onReset: () => void;
  className?: string;
};

/** Pixels one arrow key press moves the edge (Shift: more). */
const STEP = 16;

export function ResizeHandle({ label, height, min, max, onResize, onDone, onReset, className = "" }: Props) {
  const drag = useRef<{ y: number; height: number; last: number } | null>(null);

  const down = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    drag.current = { y: event.clientY, height, last: height };
  };
  const move = (event: PointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    if (!start) return;
    // The edge is the panel's top: dragging up makes the panel taller.
    start.last = start.height + (start.y - event.clientY);
    onResize(start.last);
  };
  const up = (event: PointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    if (!start) return;
    drag.current = null;
    event.currentTarget.releasePointerCapture?.(event.pointerId);
    onDone(start.last);
  };
  const key = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = event.shiftKey ? STEP * 4 : STEP;
    const to = event.key === "ArrowUp" ? height + step : event.key === "ArrowDown" ? height - step : null;
    if (event.key === "Home") {
      event.preventDefault();
      onReset();
      return;
    }
    if (to === null) return;
    event.preventDefault();
    onResize(to);
    onDone(to);
  };

  return (
    // A focusable window splitter: a separator with a value (WAI-ARIA), not an <hr>.
    <div
      className={`run-resize ${className}`}
      role="separator"
      aria-orientation="horizontal"
      aria-label={`Resize ${label}`}
      aria-valuenow={Math.round(height)}
      aria-valuemin={Math.round(min)}
      aria-valuemax={Math.round(max)}
      tabIndex={0}
      title={`Drag to resize ${label} (double-click: its usual size)`}
      onPointerDown={down}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={up}
      onDoubleClick={onReset}
      onKeyDown={key}
    />
  );
}
