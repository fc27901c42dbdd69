// The browser transport: the Backend over `crewgraph serve`'s HTTP API (docs/serve.md),
// for the UI the server hands out at `/`. Each operation goes to the route its
// declaration gives it (bindings/operations.ts `ROUTES`): the request's fields named
// in the path fill it (percent-encoded), the rest go as the query (GET, DELETE) or
// the JSON body. Crews are named relative to the server's crews folder (`exam.yaml`,
// `go-quiz`). Errors come as `{code, message}` and become BackendErrors. A run's
// events come as server-sent events, one per batch (watch.ts), read with fetch()
// because EventSource cannot send the token.
//
// The token (`crewgraph serve --token T`): from the page's `#token=T`, else the tab's
// session storage; a 401 asks the person for it once and tries again.
//
//   const backend = createHttpBackend(browserPage());
//   await backend.listCrews(); // GET /crews
import type { CrewSummary } from "../bindings/CrewSummary";
import { type OperationName, type Operations, ROUTES } from "../bindings/operations";
import type { RunEvent } from "../bindings/RunEvent";
import { type Backend, BackendError, toBackendError } from "./Backend";
import { type Call, operationMethods } from "./operations";
import type { BrowserPage } from "./page";
import { watchEvents } from "./watch";

/** Where the crews come from, as the start view says it. */
const CREWS_FOLDER = "the server's crews folder";

const runUrl = (id: string) => `runs/${encodeURIComponent(id)}`;
const fileName = (path: string) => path.split("/").filter(Boolean).pop() ?? path;

/** What the browser says about API keys: the server keeps its own. */
const keysOnTheServer = (): Promise<never> =>
  Promise.reject(
    new BackendError(
      "unavailable",
      "API keys are not sent over the web: set them on the server's machine with 'crewgraph keys set NAME', or in its environment.",
    ),
  );

/** An operation's request as its route takes it: the URL (relative to the API's
 * address) with the path's fields and, for GET and DELETE, the query; the body's
 * fields for the others (undefined: no body). */
export function routed<K extends OperationName>(name: K, request: Operations[K]["request"]): { method: string; url: string; body?: unknown } {
  const route = ROUTES[name];
  if (!route) throw new BackendError("unavailable", `A browser cannot do this (${name}): it needs the Crewgraph window.`);
  const rest: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  const path = route.path.replace(/\{(\w+)\}/g, (_, field: string) => {
    const value = rest[field];
    delete rest[field];
    return encodeURIComponent(String(value));
  });
  const fields = Object.entries(rest).filter(([, value]) => value !== undefined);
  const url = path.slice(1);
  if (route.method === "GET" || route.method === "DELETE") {
    const query = new URLSearchParams(fields.map(([key, value]) => [key, String(value)])).toString();
    return { method: route.method, url: query ? `${url}?${query}` : url };
  }
  return { method: route.method, url, body: fields.length > 0 ? Object.fromEntries(fields) : undefined };
}

/** The Backend over the server that serves this page. `base` is the API's address
 * (the page's folder by default, so a server behind a path prefix works too). */
export function createHttpBackend(page: BrowserPage, base = ""): Backend {
  const server = new Server(page, base);
  const call: Call = (name, request) => {
    const { method, url, body } = routed(name, request);
    return server.call(method, url, body);
  };
  const operations = operationMethods({
    call,
    async watch(runId, after, onBatch) {
      await watchEvents((from, signal) => server.events(runId, from, signal), after, onBatch);
    },
  });

  return {
    ...operations,
    crewsFolder: async () => CREWS_FOLDER,
    async pickCrew(kind) {
      const crews: CrewSummary[] = await call("list_crews", {}).catch(() => []);
      const names = crews.filter((c) => kind === "file" || c.layout === "directory").map((c) => c.path);
      const what = kind === "folder" ? "crew folder" : "crew";
      const list = names.length > 0 ? `\n\nIn ${CREWS_FOLDER}: ${names.join(", ")}` : "";
      const picked = page.prompt(`Which ${what}? Its name in ${CREWS_FOLDER}.${list}`, names[0] ?? "");
      return picked?.trim() || null;
    },
    async pickCrewAiProject() {
      // The browser uploads the files' text: a server reads no file a client names.
      const files = await page.chooseFiles(".yaml,.yml,.py");
      return files && files.length > 0 ? { name: null, files } : null;
    },
    async pickSavePath(suggested, title) {
      return page.prompt(title, suggested)?.trim() || null;
    },
    guardClose: (isDirty) => page.onLeave(() => !isDirty()),
    confirm: async (message, title, ok, cancel) => page.confirm(`${title}\n\n${message}\n\nOK: ${ok}. Cancel: ${cancel}.`),
    largeCanvas() {},
    async exportCrew(path, spec) {
      // The browser keeps the file: a download named after the target, nothing written on the server.
      page.download(fileName(path), await call("crew_yaml", { spec }));
    },
    // Keys never travel over HTTP: they are kept on the server's machine.
    keepsKeys: false,
    setApiKey: keysOnTheServer,
    removeApiKey: keysOnTheServer,
    runEvents: (runId) => server.call<RunEvent[]>("GET", `${runUrl(runId)}/events`, undefined, { Accept: "application/json" }),
    async pickScript() {
      return page.prompt(`Which script has the agents' replies? Its name in ${CREWS_FOLDER}, for example scripts/exam.yaml.`, "scripts/")?.trim() || null;
    },
    async exportRun(runId, path, suggested) {
      // A download, as the server wrote it (named after the target, the name given, or the run).
      const name = path ? fileName(path) : (suggested ?? `${runId}.json`);
      const { url } = routed("run_recording", { id: runId });
      page.download(name, await server.text(url), "application/json");
      return name;
    },
    async importRecording(path) {
      if (path !== undefined) {
        throw new BackendError("unavailable", "A browser reads no file by its path: choose the recording with Import recording… instead.");
      }
      const file = await page.chooseFile(".json,application/json");
      return file ? call("check_recording", file) : null;
    },
  };
}

/** The server behind the page: requests with the token, answers read as JSON. */
class Server {
  private token: string | null | undefined = undefined;
  /** The person was asked for the token and said nothing: do not ask again. */
  private refused = false;
  private asking: Promise<string | null> | null = null;

  constructor(
    private readonly page: BrowserPage,
    private readonly base: string,
  ) {}

  /** A JSON request; its JSON answer (undefined for an empty one). */
  async call<T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const response = await this.send(url, {
      method,
      headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await failure(response);
    const text = await response.text();
    if (text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw notTheServer();
    }
  }

  /** A GET's answer as the server wrote it (a file to hand on). */
  async text(url: string): Promise<string> {
    const response = await this.send(url, { method: "GET" });
    if (!response.ok) throw await failure(response);
    return response.text();
  }

  /** A run's event stream after `after` (null: all of it). */
  async events(runId: string, after: number | null, signal?: AbortSignal): Promise<Response> {
    const query = after === null ? "?batches=true" : `?batches=true&after=${after}`;
    const response = await this.send(`${runUrl(runId)}/events${query}`, { method: "GET", headers: { Accept: "text/event-stream" }, signal });
    if (!response.ok) throw await failure(response);
    return response;
  }

  /** Sends a request with the token; a 401 asks for the token once and tries again. */
  private async send(url: string, init: RequestInit): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const token = this.currentToken();
      const headers = new Headers(init.headers);
      if (token) headers.set("Authorization", `Bearer ${token}`);
      let response: Response;
      try {
        response = await this.page.fetch(this.base + url, { ...init, headers });
      } catch (error) {
        throw new BackendError("unavailable", `The Crewgraph server does not answer (${toBackendError(error).message}). Is crewgraph serve still running?`);
      }
      if (response.status !== 401 || attempt > 0) return response;
      if ((await this.askToken(token)) === null) return response;
    }
  }

  private currentToken(): string | null {
    if (this.token === undefined) this.token = this.page.loadToken();
    return this.token;
  }

  /** A token to try instead of `rejected`: one another request got meanwhile, or the
   * person's answer (one question for all the requests refused at once). */
  private askToken(rejected: string | null): Promise<string | null> {
    if (this.token !== rejected) return Promise.resolve(this.token ?? null);
    if (this.asking) return this.asking;
    if (this.refused) return Promise.resolve(null);
    this.asking = Promise.resolve().then(() => {
      const answer = this.page.prompt(
        rejected
          ? "The Crewgraph server did not take that token. Its token (what crewgraph serve was given with --token):"
          : "This Crewgraph server wants its token (what crewgraph serve was given with --token):",
      );
      const token = answer?.trim() || null;
      if (token) {
        this.token = token;
        this.page.saveToken(token);
      } else {
        this.refused = true;
      }
      this.asking = null;
      return token;
    });
    return this.asking;
  }
}

/** A failed answer as a BackendError: the server's `{code, message}`, else its status. */
async function failure(response: Response): Promise<BackendError> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === "object" && "message" in body) return toBackendError(body);
  } catch {
    // Not the server's JSON: said below.
  }
  if (response.status === 404 && !text.trimStart().startsWith("{")) return notTheServer();
  return new BackendError("unavailable", `The server answered ${response.status} ${response.statusText}`.trim());
}

/** What an answer that is not the API's means: the page is not served by crewgraph serve. */
const notTheServer = () =>
  new BackendError("unavailable", "This page needs Crewgraph behind it: open it from crewgraph serve, or in the Crewgraph window.");
