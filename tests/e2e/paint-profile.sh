#!/usr/bin/env bash
# WebKit's own paint and layout profile of the window during a fast run (BENCHMARKS.md,
# "The frame, in WebKit's own profile"): the app alone under Xvfb with its remote
# inspector open on a free loopback port, driven by paint-profile.mjs.
#
#   tests/e2e/paint-profile.sh [APP] [PACE] [SECONDS] [CSS]
#
# APP: a build of the app (target/release/crewgraph-desktop by default); PACE: the
# Simulate pace (instant by default, or readable: words streaming); SECONDS: record
# that long instead of until the run ends; CSS: a style sheet added before the run.
# Prints the figures; the whole recording goes to $E2E_OUT_DIR/paint-profile.json, the
# app's own output to paint-profile-app.log beside it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
app="${1:-$root/target/release/crewgraph-desktop}"
pace="${2:-instant}"
seconds="${3:-}"
css="${4:-}"
out="${E2E_OUT_DIR:-$root/target/e2e}"
[ -f "$app" ] && [ -x "$app" ] || { echo "paint-profile.sh: $app is not built" >&2; exit 1; }
mkdir -p "$out"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The examples and the speed figures' crew with its script (run-window.sh's own).
cp -r "$root/crews" "$work/crews"
cp "$root/tests/e2e/fixtures/speed.yaml" "$work/crews/"
node "$root/tests/e2e/generate-speed-script.mjs" 600 2 >"$work/crews/scripts/speed.yaml"

Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
pids+=($!)
for _ in $(seq 600); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { echo "paint-profile.sh: Xvfb did not start:" >&2; cat "$work/xvfb.log" >&2; exit 1; }

port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
DISPLAY=":$(cat "$work/display")" WEBKIT_INSPECTOR_HTTP_SERVER="127.0.0.1:$port" \
  CREWGRAPH_CREWS_DIR="$work/crews" CREWGRAPH_DB="$work/crewgraph.db" HOME="$work" "$app" >"$out/paint-profile-app.log" 2>&1 &
app_pid=$!
pids+=("$app_pid")
# Up when its inspector listens; a clear no if the app quits first (at most two minutes).
for _ in $(seq 1200); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$app_pid" 2>/dev/null || { echo "paint-profile.sh: the app quit before its inspector listened:" >&2; tail -20 "$out/paint-profile-app.log" >&2; exit 1; }
  sleep 0.1
done
# (Node 20 has WebSocket behind a flag; later versions have it anyway.)
flags=()
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || flags=(--experimental-websocket --no-warnings)
node "${flags[@]}" "$root/tests/e2e/paint-profile.mjs" "127.0.0.1:$port" "$work/crews" "$out/paint-profile.json" "$pace" "$seconds" "$css"
