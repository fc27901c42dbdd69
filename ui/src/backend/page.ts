// What the browser transport (http.ts) needs of the page it runs in: fetch, the
// plain dialogs a browser has (prompt, confirm) in place of the window's native
// ones, a download in place of writing a file, the leave-the-page guard, and where
// the server's token is kept. `browserPage()` is the real one; tests pass a fake.

/** The page's I/O, as the browser transport uses it. */
export interface BrowserPage {
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Asks for a line of text; null when the person cancels. */
  prompt(message: string, suggested?: string): string | null;
  /** Asks yes or no. */
  confirm(message: string): boolean;
  /** Hands the person a file to keep (Export). */
  download(name: string, text: string): void;
  /** Before the page is left (closed, reloaded, navigated away), asks `mayLeave`; on
   * false the browser asks the person whether to stay. Answers a function that stops
   * listening. */
  onLeave(mayLeave: () => boolean): () => void;
  /** The server's token, if the page was given one. */
  loadToken(): string | null;
  /** Keeps the token for this tab (reloads included). */
  saveToken(token: string): void;
}

const TOKEN_KEY = "crewgraph-token";

/** The page's `#token=…`, taken off the address bar (so it is not bookmarked, shared
 * or left in the history) and kept in the tab's session storage instead. */
function takeTokenFromAddress(): void {
  const hash = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const token = hash.get("token");
  if (token === null) return;
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  hash.delete("token");
  const rest = hash.toString();
  const url = window.location.pathname + window.location.search + (rest ? `#${rest}` : "");
  window.history.replaceState(window.history.state, "", url);
}

/** The real page. Safe to make where there is no `window` (unit tests): it touches
 * the page only when called. */
export function browserPage(): BrowserPage {
  let tokenTaken = false;
  return {
    fetch: (url, init) => window.fetch(url, init),
    prompt: (message, suggested) => window.prompt(message, suggested),
    confirm: (message) => window.confirm(message),
    download(name, text) {
      const url = URL.createObjectURL(new Blob([text], { type: "application/yaml" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = name;
      link.style.display = "none";
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    },
    onLeave(mayLeave) {
      const listener = (event: BeforeUnloadEvent) => {
        if (mayLeave()) return;
        event.preventDefault();
        event.returnValue = ""; // Chromium before 119 wants it set
      };
      window.addEventListener("beforeunload", listener);
      return () => window.removeEventListener("beforeunload", listener);
    },
    loadToken() {
      if (!tokenTaken) {
        tokenTaken = true;
        takeTokenFromAddress();
      }
      return sessionStorage.getItem(TOKEN_KEY);
    },
    saveToken: (token) => sessionStorage.setItem(TOKEN_KEY, token),
  };
}
