#!/usr/bin/env bash
# Runs the browser end-to-end tests: `crewgraph serve` with a token on a free port,
# over a copy of the example crews (plus the interview crew and its script), then
# `node --test` on tests/e2e/browser.test.mjs and browser-tools.test.mjs, which drive
# Chromium (playwright-core from ui/node_modules) through the web UI the server hands
# out. Name test files to run only those: `run-browser.sh browser-tools`.
# Screenshots land in target/e2e-browser/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/target/e2e-browser"
cli="$root/target/debug/crewgraph"
chromium="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$cli" ] || { echo "run-browser.sh: $cli is not built" >&2; exit 1; }
[ -f "$root/ui/dist/index.html" ] || { echo "run-browser.sh: the web UI is not built (cd ui && npm run build)" >&2; exit 1; }
[ -x "$chromium" ] || { echo "run-browser.sh: Chromium not found at $chromium" >&2; exit 1; }
[ -d "$root/ui/node_modules/playwright-core" ] || { echo "run-browser.sh: playwright-core is not installed (cd ui && npm ci)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

# The examples plus the interview crew and its Simulate script, in a folder of their
# own, and a database of their own.
work=$(mktemp -d)
crews="$work/crews"
mkdir -p "$crews"
# (The file desk names its MCP server as ../.tools/mcp/…: the repository's.)
ln -s "$root/.tools" "$work/.tools"
cp -r "$root/crews/." "$crews/"
cp "$root/tests/e2e/fixtures/interview.yaml" "$crews/"
cp "$root/tests/e2e/fixtures/interview-script.yaml" "$crews/scripts/interview.yaml"
# The speed figures' crew and its script (about 1,000 events a second), as in run-window.sh.
cp "$root/tests/e2e/fixtures/speed.yaml" "$crews/"
node "$root/tests/e2e/generate-speed-script.mjs" 600 2 >"$crews/scripts/speed.yaml"
# A generated crew of 1,000 agents and 3,000 edges for the canvas's frame rates, in
# a folder of its own (the start view lists only the crews folder's own files).
mkdir "$crews/big"
node "$root/tests/e2e/generate-crew.mjs" 1000 >"$crews/big/generated-1000.yaml"

pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A free port: asked of the kernel, then handed to the server.
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
token=$(node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))')
CREWGRAPH_DB="$work/crewgraph.db" "$cli" serve --addr "127.0.0.1:$port" --crews "$crews" --db "$work/crewgraph.db" --ui "$root/ui/dist" --token "$token" \
  >"$out/serve.log" 2>&1 &
pid=$!
# Up when GET /health answers (it needs no token); at most a minute (a busy machine).
node -e '
  const [url, pid] = process.argv.slice(1);
  const deadline = Date.now() + 60000;
  const alive = () => { try { process.kill(Number(pid), 0); return true; } catch { return false; } };
  (async () => {
    while (Date.now() < deadline && alive()) {
      if (await fetch(url).then((r) => r.ok, () => false)) process.exit(0);
      await new Promise((r) => setTimeout(r, 100));
    }
    process.exit(1);
  })();' "http://127.0.0.1:$port/health" "$pid" || { echo "run-browser.sh: crewgraph serve did not start:" >&2; cat "$out/serve.log" >&2; exit 1; }

# The test files to run: those named on the command line, else all of them (E2E_ONLY:
# only the tests whose names match this pattern, node's --test-name-pattern).
names=("$@")
if ((${#names[@]} == 0)); then
  names=(browser browser-tools browser-import)
fi
files=()
for name in "${names[@]}"; do files+=("$root/tests/e2e/$name.test.mjs"); done

E2E_URL="http://127.0.0.1:$port" E2E_TOKEN="$token" E2E_CREWS="$crews" E2E_OUT="$out" CHROMIUM="$chromium" \
  node --test --test-concurrency=1 ${E2E_ONLY:+--test-name-pattern="$E2E_ONLY"} "${files[@]}"
