// "Add an agent": the agent form for a new agent in a modal window. Escape or
// Cancel closes it; focus stays inside while it is open and goes back where it
// was when it closes.
import { type KeyboardEvent, useEffect, useId, useRef } from "react";
import { createPortal } from "react-dom";
import type { Position } from "../../editor/history";
import { AgentForm } from "./AgentForm";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

type NewAgentDialogProps = {
  onClose: () => void;
  /** Where the new agent's card goes (a double-click on the canvas). */
  position?: Position;
};

export function NewAgentDialog({ onClose, position }: NewAgentDialogProps) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement;
    return () => {
      if (before instanceof HTMLElement) before.focus();
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== "Tab" || !box.current) return;
    const focusable = [...box.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    // biome-ignore lint/a11y/noStaticElementInteractions: a click beside the dialog closes it; keyboards use Escape
    <div className="ins-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={box} className="ins-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} onKeyDown={onKeyDown}>
        <header className="ins-dialog-head">
          <h2 id={titleId}>Add an agent</h2>
          <button type="button" className="ins-icon-button" aria-label="Close" title="Close (Escape)" onClick={onClose}>
            ×
          </button>
        </header>
        <AgentForm agentId={null} onClose={onClose} position={position} />
      </div>
    </div>,
    document.body,
  );
}
