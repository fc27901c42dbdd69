// Light, dark, or whatever the system says: the person's choice, remembered, set
// on <html data-theme> so the stylesheet's colours follow it.
import { useEffect, useState } from "react";

export type Theme = "system" | "light" | "dark";
const KEY = "crewgraph.theme";

function stored(): Theme {
  const value = typeof localStorage !== "undefined" ? localStorage.getItem(KEY) : null;
  return value === "light" || value === "dark" ? value : "system";
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(stored);
  useEffect(() => {
    const root = document.documentElement;
    if (theme === "system") delete root.dataset.theme;
    else root.dataset.theme = theme;
    localStorage.setItem(KEY, theme);
  }, [theme]);
  return [theme, setTheme];
}
