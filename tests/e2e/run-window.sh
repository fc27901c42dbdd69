#!/usr/bin/env bash
# Runs the window's end-to-end tests: Xvfb, tauri-driver (which starts
# WebKitWebDriver and the app), then `node --test`. Screenshots land in target/e2e/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/target/e2e"
app="$root/target/debug/crewgraph-desktop"
driver="${TAURI_DRIVER:-$root/.tools/bin/tauri-driver}"
[ -x "$app" ] || { echo "run-window.sh: $app is not built" >&2; exit 1; }
[ -x "$driver" ] || { echo "run-window.sh: tauri-driver not found at $driver" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

# The examples plus a broken crew, in a folder of their own.
crews=$(mktemp -d)
cp -r "$root/crews/." "$crews/"
cp "$root/tests/e2e/fixtures/broken-crew.yaml" "$crews/"
# An empty crew for the editor test to build on, and (outside the crews folder, so
# the start view does not draw it) a generated crew of 1,000 agents and 3,000 edges
# for the canvas's frame-rate figures.
printf 'version: "1.0"\nname: Lab\nagents: []\n' >"$crews/lab.yaml"
cp "$root/tests/e2e/fixtures/interview.yaml" "$crews/"
cp "$root/tests/e2e/fixtures/interview-script.yaml" "$crews/scripts/interview.yaml"
# The speed figures' crew and its script (about 1,000 events a second).
cp "$root/tests/e2e/fixtures/speed.yaml" "$crews/"
node "$root/tests/e2e/generate-speed-script.mjs" 600 2 >"$crews/scripts/speed.yaml"
big=$(mktemp -d)
node "$root/tests/e2e/generate-crew.mjs" 1000 >"$big/generated-1000.yaml"

# The test files to run: those named on the command line, else all of them.
tests=("$@")
if ((${#tests[@]} == 0)); then
  tests=(window editor runs simulate speed)
fi
tests=("${tests[@]/#/$root/tests/e2e/}")
tests=("${tests[@]/%/.test.mjs}")

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$crews" "$big"
}
trap cleanup EXIT

Xvfb -displayfd 3 -screen 0 1400x900x24 -nolisten tcp 3>"$out/display" 2>"$out/xvfb.log" &
pids+=($!)
# Each helper gets up to a minute to come up (a busy machine is slow), then a clear no.
for _ in $(seq 600); do [ -s "$out/display" ] && break; sleep 0.1; done
[ -s "$out/display" ] || { echo "run-window.sh: Xvfb did not start:" >&2; cat "$out/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(cat "$out/display")"

port=$(( 20000 + RANDOM % 20000 ))
CREWGRAPH_CREWS_DIR="$crews" CREWGRAPH_DB="$big/crewgraph.db" "$driver" --port "$port" --native-port $(( port + 1 )) >"$out/tauri-driver.log" 2>&1 &
pids+=($!)
up=
for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && up=1 && break; sleep 0.1; done
[ -n "$up" ] || { echo "run-window.sh: tauri-driver did not listen on port $port:" >&2; cat "$out/tauri-driver.log" >&2; exit 1; }

CREWGRAPH_APP="$app" E2E_OUT="$out" TAURI_DRIVER_URL="http://127.0.0.1:$port" E2E_CREWS="$crews" E2E_BIG_CREW="$big/generated-1000.yaml" \
  node --test --test-concurrency=1 "${tests[@]}"
