#!/usr/bin/env bash
# The key tests that need an OS keyring, or none at all (the `secrets` module of
# crewgraph's integration tests, its tests named keyring_*, locked_keyring_* and
# no_keyring_*, which a plain `cargo test` ignores):
#
#  1. with no session bus: what Settings say when no keyring is reachable;
#  2. inside a private D-Bus session (dbus-run-session) running gnome-keyring's
#     Secret Service, its login keyring made and unlocked with a throwaway password
#     in a temp folder: keys set, used, replaced and removed through the CLI and the
#     API, and a key in every place a key can go, grepped for everywhere;
#  3. in a second session on the same keyring, left locked (no display, so no
#     password prompt can show): what a person is told, and keys from the
#     environment still used.
#
# Never the keyring of the person running it: the tests refuse to run unless this
# script set CREWGRAPH_TEST_KEYRING. Needs dbus and gnome-keyring
# (scripts/install-deps.sh --test, run by `make test-deps`), and gdbus (GLib's, with
# WebKitGTK's development files).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in dbus-run-session gnome-keyring-daemon gdbus; do
  command -v "$tool" >/dev/null || {
    echo "error: $tool is missing; 'make test-deps' installs it (Debian: dbus, gnome-keyring)" >&2
    exit 1
  }
done

# The tests run from the binary `cargo test --workspace` built (same features, so
# nothing is built again).
tests=(cargo test --workspace --test integration --quiet)

echo "== secrets: no keyring reachable (no session bus)"
env -u DBUS_SESSION_BUS_ADDRESS CREWGRAPH_TEST_KEYRING=none \
  "${tests[@]}" -- --ignored ::no_keyring_

home=$(mktemp -d /tmp/crewgraph-keyring.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -m 700 "$home/data" "$home/run"

echo "== secrets: a private Secret Service (gnome-keyring in its own D-Bus session)"
# gnome-keyring keeps its keyrings in $XDG_DATA_HOME/keyrings and its control
# socket in $XDG_RUNTIME_DIR; both point into the temp folder. --unlock reads the
# password from stdin and makes the login keyring when there is none. The daemon
# ends with the session's bus.
session=(env -u DISPLAY -u WAYLAND_DISPLAY XDG_DATA_HOME="$home/data" XDG_RUNTIME_DIR="$home/run" dbus-run-session --)
quiet() { grep -v -e "Failed to set fd limit" -e "Activat" -e "control socket" -e "discover_other_daemon" \
  -e "cannot open display" -e "SystemPrompter" -e "couldn't create system prompt" -e "^$" >&2 || true; }
CREWGRAPH_TEST_KEYRING=private "${session[@]}" bash -c '
    set -euo pipefail
    printf %s "throwaway-test-password" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    # The daemon may not own the Secret Service name yet when --unlock returns: a
    # test asking then would have D-Bus start a second daemon, its keyring locked
    # (seen once in a fresh clone on a busy machine). Wait (60 s at most) until the
    # name is owned — asked without starting anything — and the login keyring is
    # unlocked.
    ready=
    for _ in $(seq 600); do
      if gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
           --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true &&
         gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets/collection/login \
           --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked 2>/dev/null | grep -q false; then
        ready=1
        break
      fi
      sleep 0.1
    done
    [ -n "$ready" ] || { echo "error: the private keyring was not unlocked within 60 s" >&2; exit 1; }
    "$@" -- --ignored ::keyring_
  ' keyring "${tests[@]}" 2> >(quiet)

echo "== secrets: the same keyring, locked (the Secret Service started by D-Bus activation)"
CREWGRAPH_TEST_KEYRING=locked "${session[@]}" "${tests[@]}" -- --ignored ::locked_keyring_ 2> >(quiet)
