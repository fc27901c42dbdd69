// Signal names checked by the engine as they are typed (format, for example a
// missing bracket), so a wrong name is flagged before it is applied.
import { useEffect, useState } from "react";
import { backend } from "../../backend";

/** How long typing must pause before a name is checked. */
export const CHECK_DELAY_MS = 150;

/** What is wrong with a signal name, or null; null too when the engine cannot be
 * asked (the edit's own check and the engine's verdict still apply). */
export function checkSignalName(name: string): Promise<string | null> {
  return backend.checkSignalName(name.trim()).catch(() => null);
}

/** The engine's word on `name` once typing pauses; null while it is empty,
 * unchecked or fine. */
export function useSignalCheck(name: string): string | null {
  const [result, setResult] = useState<{ name: string; error: string | null } | null>(null);
  const trimmed = name.trim();
  useEffect(() => {
    if (trimmed === "") return;
    let live = true;
    const timer = setTimeout(() => {
      void checkSignalName(trimmed).then((error) => {
        if (live) setResult({ name: trimmed, error });
      });
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [trimmed]);
  return result !== null && result.name === trimmed ? result.error : null;
}
