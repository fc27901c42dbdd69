// A model as list_models answers it, for the models' unit tests: `local` is the
// built-in one standing in (not chosen), any other name a configured model.
import type { ModelView } from "../bindings/ModelView";

export const modelView = (name: string, more: Partial<ModelView> = {}): ModelView => ({
  name,
  provider: name === "local" ? "local" : "openai",
  model: name,
  base_url: "",
  default: false,
  chosen: name !== "local",
  key: null,
  key_name: null,
  reachable: null,
  problem: null,
  ...more,
});
