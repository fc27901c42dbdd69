"""A tool server that fails in one way, for the MCP client's fault tests.

Usage: faulty_server.py FAULT [MARK], FAULT one of
  exit-at-start  writes a line to stderr and exits 3 before reading anything;
  hang           reads requests and never answers (stuck in initialize);
  garbage        answers every line with text that is not JSON-RPC;
  crash-on-call  a sound server that exits in the middle of every tools/call;
  huge           a sound server whose one tool returns 10 MB of text.
It speaks JSON-RPC lines on stdio by hand (no SDK), so each fault is exact.
"""
import json
import sys

fault = sys.argv[1]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if fault == "exit-at-start":
    sys.stderr.write("faulty server: cannot open its configuration\n")
    sys.exit(3)

for line in sys.stdin:
    if fault == "hang":
        continue
    if fault == "garbage":
        sys.stdout.write("this is not JSON-RPC {\n")
        sys.stdout.flush()
        continue
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "faulty", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [
            {"name": "work", "description": "Does some work.", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call" and fault == "crash-on-call":
        sys.stderr.write("faulty server: crashed in the middle of a call\n")
        sys.stderr.flush()
        sys.exit(1)
    elif method == "tools/call" and fault == "huge":
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "x" * (10 * 1024 * 1024)}]}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no such method"}})
