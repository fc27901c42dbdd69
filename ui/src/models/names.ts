// Names for the models a person adds with one press (Use on a found server, the
// guided start's key form): what crew files will call them (`model: NAME`), made
// from the provider's name for the model. Pure.
//
//   modelNameFor("qwen2.5:7b-instruct", ["local"])   // "qwen2.5-7b-instruct"
//   modelNameFor("openai/gpt-4o-mini", ["gpt-4o-mini"]) // "gpt-4o-mini-2"

/** Names a model may not take: the built-in one, and the word crew files use for
 * "the default model". */
const RESERVED = ["local", "default"];
/** The longest name made (a model file's name can be very long). */
const LONGEST = 48;

/** A model's name from its provider's name for it: the part after the last `/`
 * (a server's folder, an OpenRouter vendor), without a `.gguf` ending, in lower
 * case, with letters, digits, `-`, `_` and `.` only (what Settings accepts), and
 * unique among `taken` — `-2`, `-3` … added when it is not. */
export function modelNameFor(model: string, taken: Iterable<string>): string {
  const last =
    model
      .trim()
      .split(/[/\\]/)
      .filter((part) => part !== "")
      .pop() ?? "";
  const base =
    last
      .toLowerCase()
      .replace(/\.gguf$/, "")
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^[-_.]+/, "")
      .slice(0, LONGEST)
      .replace(/[-_.]+$/, "") || "model";
  const used = new Set([...taken, ...RESERVED]);
  if (!used.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const name = `${base}-${n}`;
    if (!used.has(name)) return name;
  }
}

/** The name an API key is kept under for a model named `name` (a keyring entry
 * and `CREWGRAPH_<NAME>_API_KEY`: letters, digits, `-` and `_`). */
export function keyNameFor(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "-");
}
