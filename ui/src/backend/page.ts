// What the browser transport (http.ts) needs of the page it runs in: fetch, the
// plain dialogs a browser has (prompt, confirm) in place of the window's native
// ones, a download in place of writing a file, a file chooser in place of reading
// one, the leave-the-page guard, and where the server's token is kept. `browserPage()` is the real one; tests pass a fake.

/** The page's I/O, as the browser transport uses it. */
export interface BrowserPage {
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Asks for a line of text; null when the person cancels. */
  prompt(message: string, suggested?: string): string | null;
  /** Asks yes or no. */
  confirm(message: string): boolean;
  /** Hands the person a file to keep (Export); `type` is its MIME type (YAML unless said). */
  download(name: string, text: string, type?: string): void;
  /** Lets the person choose a file of theirs (`accept`: as the file input takes it,
   * ".json"); its name and text, or null when they cancel. */
  chooseFile(accept: string): Promise<{ name: string; text: string } | null>;
  /** Lets the person choose several files of theirs at once; their names and texts,
   * or null when they cancel. */
  chooseFiles(accept: string): Promise<{ name: string; text: string }[] | null>;
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
    download(name, text, type = "application/yaml") {
      const url = URL.createObjectURL(new Blob([text], { type }));
      const link = document.createElement("a");
      link.href = url;
      link.download = name;
      link.style.display = "none";
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    },
    async chooseFile(accept) {
      const files = await choose(accept, false);
      return files?.[0] ?? null;
    },
    chooseFiles: (accept) => choose(accept, true),
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

/** The page's file chooser: the files the person picked (one unless `multiple`), each
 * with its name and text; null when they close it without a file. */
function choose(accept: string, multiple: boolean): Promise<{ name: string; text: string }[] | null> {
  return new Promise((resolve, reject) => {
    const input = document.createElement("input");
    input.type = "file";
    input.accept = accept;
    input.multiple = multiple;
    input.style.display = "none";
    const done = () => input.remove();
    input.addEventListener("change", () => {
      const files = Array.from(input.files ?? []);
      done();
      if (files.length === 0) return resolve(null);
      Promise.all(files.map(async (file) => ({ name: file.name, text: await file.text() }))).then(resolve, reject);
    });
    // (Browsers since 2023 say when the person closed the chooser without a file.)
    input.addEventListener("cancel", () => {
      done();
      resolve(null);
    });
    document.body.append(input);
    input.click();
  });
}
