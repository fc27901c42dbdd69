// A right-click menu (UX.md: "right-click menus"): a short list of what can be done
// with what was clicked, where it was clicked. Keyboard reachable: it opens with its
// first item focused (Shift+F10 or the context-menu key open it on what has focus),
// the arrow keys, Home and End move, Enter or Space choose, Escape or Tab close it
// and focus goes back where it was; a press anywhere else closes it too.
import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";

export type MenuItem = {
  label: string;
  /** What the item does, on hover (and to screen readers). */
  hint?: string;
  /** The shortcut that does the same, shown at the right. */
  keys?: string;
  disabled?: boolean;
  danger?: boolean;
  onSelect: () => void;
};

type Props = {
  /** Where the menu opens (window coordinates); it is kept inside the window. */
  at: { x: number; y: number };
  /** What the menu is about, for screen readers ("Teacher"). */
  label: string;
  items: MenuItem[];
  onClose: () => void;
};

export function ContextMenu({ at, label, items, onClose }: Props) {
  const menu = useRef<HTMLDivElement>(null);
  const [place, setPlace] = useState(at);
  // Where focus was, to give it back when the menu closes.
  const before = useRef<Element | null>(null);

  useLayoutEffect(() => {
    before.current = document.activeElement;
    const box = menu.current;
    if (!box) return;
    const x = Math.max(4, Math.min(at.x, window.innerWidth - box.offsetWidth - 4));
    const y = Math.max(4, Math.min(at.y, window.innerHeight - box.offsetHeight - 4));
    setPlace({ x, y });
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([disabled])')?.focus();
  }, [at]);

  useEffect(() => {
    const away = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node)) onClose();
    };
    // (A press elsewhere closes it; the press that opened it is over by now.)
    window.addEventListener("mousedown", away, true);
    window.addEventListener("blur", onClose);
    return () => {
      window.removeEventListener("mousedown", away, true);
      window.removeEventListener("blur", onClose);
    };
  }, [onClose]);

  const close = (giveBack: boolean) => {
    onClose();
    if (giveBack && before.current instanceof HTMLElement) before.current.focus();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const buttons = [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]:not([disabled])') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const move = (to: number) => buttons[(to + buttons.length) % buttons.length]?.focus();
    if (event.key === "ArrowDown") move(at + 1);
    else if (event.key === "ArrowUp") move(at - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(buttons.length - 1);
    else if (event.key === "Escape" || event.key === "Tab") close(true);
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  return createPortal(
    <div
      ref={menu}
      className="context-menu"
      role="menu"
      aria-label={label}
      tabIndex={-1}
      style={{ left: place.x, top: place.y }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          className={`context-menu-item${item.danger ? " danger" : ""}`}
          disabled={item.disabled}
          title={item.hint}
          onClick={() => {
            close(false);
            item.onSelect();
          }}
        >
          <span>{item.label}</span>
          {item.keys && <kbd>{item.keys}</kbd>}
        </button>
      ))}
    </div>,
    document.body,
  );
}
