// Choosing the model agents use with one press — Use on a model server found on
// this computer, the guided start's provider key, the built-in demo model — and
// checking it on the spot. A model added here is asked for real (check_model):
// one that answers becomes the default; one that does not is taken out again, and
// the check says why (in words: models/words.ts). A model the person had already is
// reused, and kept whatever its check says.
//
//   const chosen = await addServerModel(backend, server, "qwen2.5:7b");
//   chosen.chosen ? `Agents now run on ${chosen.name}` : checkWords(chosen.check)
import type { Backend } from "../backend/Backend";
import type { FoundServer } from "../bindings/FoundServer";
import type { ModelCheck } from "../bindings/ModelCheck";
import type { ModelRequest } from "../bindings/ModelRequest";
import { keyNameFor, modelNameFor } from "./names";

/** What one press came to: the model's name, what its check found, and whether it
 * is now the model agents use (it answered). */
export type Chosen = { name: string; check: ModelCheck; chosen: boolean };

type ModelCalls = Pick<Backend, "listModels" | "putModel" | "removeModel" | "setDefaultModel" | "checkModel">;

/** Checks the model `name`; makes it the default when it answers, and takes it out
 * again when it does not and was `added` just now. */
export async function checkAndChoose(backend: ModelCalls, name: string, added: boolean): Promise<Chosen> {
  const dropAdded = () => (added ? backend.removeModel(name).catch(() => {}) : Promise.resolve());
  let check: ModelCheck;
  try {
    check = await backend.checkModel(name);
  } catch (error) {
    await dropAdded();
    throw error;
  }
  if (!check.answers) {
    await dropAdded();
    return { name, check, chosen: false };
  }
  await backend.setDefaultModel(name);
  return { name, check, chosen: true };
}

/** Use: the model `model` of a server found on this computer (an OpenAI-compatible
 * address, no key: its key name is its own, so no provider's key is ever sent to it). */
export async function addServerModel(backend: ModelCalls, server: FoundServer, model: string): Promise<Chosen> {
  const models = await backend.listModels();
  const same = models.find((m) => m.provider === "openai" && m.base_url === server.base_url && m.model === model);
  if (same) return checkAndChoose(backend, same.name, false);
  const name = modelNameFor(model, models.map((m) => m.name));
  await backend.putModel(name, { provider: "openai", base_url: server.base_url, model, key_name: keyNameFor(name) });
  return checkAndChoose(backend, name, true);
}

/** The providers the guided start takes a key for. */
export type ProviderChoice = "openai" | "anthropic" | "openrouter" | "compatible";

export const PROVIDERS: Record<
  ProviderChoice,
  { words: string; provider: "openai" | "anthropic"; baseUrl?: string; keyName?: string; example: string; needsKey: boolean }
> = {
  openai: { words: "OpenAI", provider: "openai", keyName: "openai", example: "gpt-4o-mini", needsKey: true },
  anthropic: { words: "Anthropic", provider: "anthropic", keyName: "anthropic", example: "claude-3-5-haiku-latest", needsKey: true },
  openrouter: { words: "OpenRouter", provider: "openai", baseUrl: "https://openrouter.ai/api/v1", keyName: "openrouter", example: "openai/gpt-4o-mini", needsKey: true },
  compatible: { words: "Another OpenAI-compatible server", provider: "openai", example: "the server's model name", needsKey: false },
};

/** What the key form holds. */
export type KeyedModel = { choice: ProviderChoice; model: string; key: string; baseUrl: string };

/** The name a provider's key is kept under, for a model named `name`. */
export function keyNameOf(choice: ProviderChoice, name: string): string {
  return PROVIDERS[choice].keyName ?? keyNameFor(name);
}

/** Use a provider key: the key kept (where the backend keeps keys: `keepsKeys`),
 * the model added under a name made from its own, then checked. */
export async function addKeyedModel(backend: ModelCalls & Pick<Backend, "setApiKey" | "keepsKeys">, form: KeyedModel): Promise<Chosen> {
  const provider = PROVIDERS[form.choice];
  const model = form.model.trim();
  const baseUrl = (provider.baseUrl ?? form.baseUrl).trim();
  const models = await backend.listModels();
  const name = modelNameFor(model, models.map((m) => m.name));
  const keyName = keyNameOf(form.choice, name);
  if (backend.keepsKeys && form.key.trim()) await backend.setApiKey(keyName, form.key.trim());
  const request: ModelRequest = { provider: provider.provider, model, key_name: keyName, ...(baseUrl ? { base_url: baseUrl } : {}) };
  await backend.putModel(name, request);
  return checkAndChoose(backend, name, true);
}
