//! The MCP client against real servers (`scripts/install-mcp-servers.sh` puts them in
//! `.tools/mcp`; `make test` runs it first, and every test here fails with that
//! advice when they are missing): npm's `server-everything` (tools, progress, long
//! calls, structured content, images, its environment; over stdio and Streamable
//! HTTP) and `server-filesystem` (a real read, a real write, a path outside its
//! root), PyPI's `mcp-server-time` (a second implementation, in Python), and
//! `faulty_server.py` for what a broken server does (exits at start, hangs in
//! `initialize`, speaks no JSON-RPC, crashes mid-call, sends 10 MB).

mod everything;
mod faults;
mod filesystem;
mod support;
mod time;
