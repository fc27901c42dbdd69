#!/usr/bin/env bash
# Runs the window's end-to-end tests: Xvfb, tauri-driver (which starts
# WebKitWebDriver and the app), then `node --test`. Screenshots land in target/e2e/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# (E2E_OUT_DIR: somewhere else, so two people testing at once keep their screenshots.)
out="${E2E_OUT_DIR:-$root/target/e2e}"
# (E2E_APP: another build of the app, the release one say, for its figures.
# E2E_ONLY: only the tests whose names match this pattern, node's --test-name-pattern.)
app="${E2E_APP:-$root/target/debug/crewgraph-desktop}"
driver="${TAURI_DRIVER:-$root/.tools/bin/tauri-driver}"
[ -x "$app" ] || { echo "run-window.sh: $app is not built" >&2; exit 1; }
[ -x "$driver" ] || { echo "run-window.sh: tauri-driver not found at $driver" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

# The examples plus a broken crew, in a folder of their own, beside a link to the
# repository's .tools (the file desk names its MCP server as ../.tools/mcp/…).
copies=$(mktemp -d)
crews="$copies/crews"
mkdir "$crews"
ln -s "$root/.tools" "$copies/.tools"
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

# The test files to run: those named on the command line, else all of them. The
# guided start (start) wants a database where no model was ever set up or checked,
# and leaves the demo model chosen and checked (a warning on every crew with tools):
# it runs after the others, against a database and a tauri-driver of its own.
names=("$@")
if ((${#names[@]} == 0)); then
  names=(window editor runs simulate speed runside canvas tools coverage start)
fi
shared=()
own=()
for name in "${names[@]}"; do
  if [ "$name" = start ]; then own+=("$root/tests/e2e/$name.test.mjs"); else shared+=("$root/tests/e2e/$name.test.mjs"); fi
done

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$copies" "$big"
}
trap cleanup EXIT

# Room for a 1440×900 window (start.test's screenshots) besides the app's own 1280×800.
Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp 3>"$out/display" 2>"$out/xvfb.log" &
pids+=($!)
# Each helper gets up to a minute to come up (a busy machine is slow), then a clear no.
for _ in $(seq 600); do [ -s "$out/display" ] && break; sleep 0.1; done
[ -s "$out/display" ] || { echo "run-window.sh: Xvfb did not start:" >&2; cat "$out/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(cat "$out/display")"

driver_pid=
db=
# Starts tauri-driver on a free port, the app it starts using the database $1.
start_driver() {
  db=$1
  port=$(( 20000 + RANDOM % 20000 ))
  CREWGRAPH_CREWS_DIR="$crews" CREWGRAPH_DB="$1" "$driver" --port "$port" --native-port $(( port + 1 )) >>"$out/tauri-driver.log" 2>&1 &
  driver_pid=$!
  pids+=("$driver_pid")
  local up=
  for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && up=1 && break; sleep 0.1; done
  [ -n "$up" ] || { echo "run-window.sh: tauri-driver did not listen on port $port:" >&2; cat "$out/tauri-driver.log" >&2; exit 1; }
}
stop_driver() {
  kill "$driver_pid" 2>/dev/null || true
  wait "$driver_pid" 2>/dev/null || true
}
run_tests() {
  # (E2E_CLI and E2E_DB: the command line on the app's database, to add an agent
  # while the app runs as a person would, with `crewgraph agents add`.)
  CREWGRAPH_APP="$app" E2E_OUT="$out" TAURI_DRIVER_URL="http://127.0.0.1:$port" E2E_CREWS="$crews" E2E_BIG_CREW="$big/generated-1000.yaml" \
    E2E_CLI="$root/target/debug/crewgraph" E2E_DB="$db" \
    node --test --test-concurrency=1 ${E2E_ONLY:+--test-name-pattern="$E2E_ONLY"} "$@"
}

status=0
if ((${#shared[@]} > 0)); then
  start_driver "$big/crewgraph.db"
  run_tests "${shared[@]}" || status=$?
  stop_driver
fi
if ((${#own[@]} > 0)); then
  start_driver "$big/start.db"
  run_tests "${own[@]}" || status=$?
  stop_driver
fi
exit "$status"
