// What cannot be missed takes the focus when it comes (UX.md): an approval card, a
// pause before an agent's turn. Once for each thing that comes (its `key`), and only
// when the element can take it: such a card can arrive while the request that led to
// it is still answered, its buttons disabled, and a focus() then does nothing.
import { type RefObject, useEffect, useRef } from "react";

/** Moves focus to `target` once per `key`, as soon as `ready`. */
export function useFocusOnce(target: RefObject<HTMLElement | null>, key: string | number, ready: boolean): void {
  const focusedFor = useRef<string | number | null>(null);
  useEffect(() => {
    if (!ready || focusedFor.current === key) return;
    focusedFor.current = key;
    target.current?.focus();
  }, [target, key, ready]);
}
