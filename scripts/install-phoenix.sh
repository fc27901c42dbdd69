#!/usr/bin/env bash
# Installs Arize Phoenix, pinned, into .tools/phoenix/venv: the OpenTelemetry
# receiver the trace tests export runs to and read spans back from
# (crewgraph/tests/integration/otel_phoenix.rs, docs/observability.md). About
# 850 MB and under a minute from PyPI. Quick when it is there already.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.tools/phoenix"
version=20.26.1
stamp="$dir/.installed-arize-phoenix-$version"
[ -e "$stamp" ] && exit 0
echo "Installing Arize Phoenix $version (the trace tests' receiver) into $dir"
mkdir -p "$dir"
python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install -q --disable-pip-version-check "arize-phoenix==$version"
rm -f "$dir"/.installed-*
touch "$stamp"
