"""Calls a folder of crews as MCP tools with the official Python SDK (PyPI `mcp`), the
way Claude Desktop or Cursor would: over stdio (`crewgraph mcp`) or Streamable HTTP
(`/mcp` of `crewgraph serve`). Asserts what each call answers; prints `cancel-sent`
once it cancelled a call mid-run and waits for a line on stdin (the test checks the
run ended cancelled meanwhile), then `ok`.

    mcp_client.py stdio CREWGRAPH CREWS DB
    mcp_client.py http URL TOKEN
"""

import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client


def check(condition, what):
    if not condition:
        raise AssertionError(what)


async def scenario(session):
    await session.initialize()
    listed = await session.list_tools()
    names = {tool.name: tool for tool in listed.tools}
    for name in ["exam", "ask", "fails", "slow", "resume_run"]:
        check(name in names, f"{name} is a tool: {sorted(names)}")
    check("broken" not in names, f"a crew with errors is no tool: {sorted(names)}")
    check(names["exam"].input_schema["required"] == ["input"], names["exam"].input_schema)

    # A crew that runs to its end, one progress notification per handoff.
    notes = []

    async def progress(value, total, message):
        notes.append((value, message))

    done = await session.call_tool("exam", {"input": "Start the exam", "model": "simulate"}, progress_callback=progress)
    check(not done.is_error, f"the exam ran: {done}")
    outcome = done.structured_content
    check(outcome["status"] in ("completed", "terminated"), outcome)
    check(outcome["answer"].startswith("Both right"), outcome)
    check(done.content[0].text == outcome["answer"], done.content)
    check(len(notes) == outcome["handoffs"] and len(notes) >= 2, f"a progress note per handoff: {notes} {outcome}")
    check(all("→" in message and " because " in message for _, message in notes), notes)
    check([value for value, _ in notes] == sorted(value for value, _ in notes), notes)

    # A crew that waits for a person, then goes on with resume_run.
    asked = await session.call_tool("ask", {"input": "hello", "model": "simulate"})
    check(not asked.is_error, asked)
    waiting = asked.structured_content
    check(waiting["status"] == "paused", waiting)
    check(waiting["waiting"]["kind"] == "answer" and waiting["waiting"]["question"] == "What is your name?", waiting)
    check("resume_run" in asked.content[0].text and waiting["run_id"] in asked.content[0].text, asked.content)
    resumed = await session.call_tool("resume_run", {"run_id": waiting["run_id"], "input": "Ada"})
    check(not resumed.is_error, resumed)
    check(resumed.structured_content["status"] in ("completed", "terminated"), resumed.structured_content)
    check(resumed.structured_content["answer"] == "Hello, Ada. [END]", resumed.structured_content)
    again = await session.call_tool("resume_run", {"run_id": waiting["run_id"], "input": "Ada"})
    check(again.is_error and "not waiting" in again.content[0].text, again)

    # A crew whose run fails: an error result that says why.
    failed = await session.call_tool("fails", {"input": "go", "model": "simulate"})
    check(failed.is_error, failed)
    check(failed.structured_content["status"] == "failed", failed.structured_content)
    check("ended failed" in failed.content[0].text, failed.content)

    # Bad calls are answered in words.
    for name, arguments, words in [
        ("nope", {"input": "x"}, "there is no crew 'nope'"),
        ("exam", {"input": 7}, "'input' must be text"),
        ("exam", {}, "'input' is missing"),
        ("exam", {"input": "   "}, "the input is empty"),
        ("plain", {"input": "x", "model": "simulate"}, "has no Simulate script"),
        ("resume_run", {"run_id": "run-nope", "input": "x"}, "run-nope"),
    ]:
        answer = await session.call_tool(name, arguments)
        check(answer.is_error and words in answer.content[0].text, f"{name} {arguments}: {answer}")

    # A call cancelled while its crew runs: the run stops.
    handed = anyio.Event()

    async def slow_progress(value, total, message):
        handed.set()

    async with anyio.create_task_group() as group:

        async def slow_call():
            await session.call_tool("slow", {"input": "go", "model": "simulate"}, progress_callback=slow_progress)
            raise AssertionError("the slow crew ended before it was cancelled")

        group.start_soon(slow_call)
        with anyio.fail_after(120):
            await handed.wait()
        group.cancel_scope.cancel()
    print("cancel-sent", flush=True)
    await anyio.to_thread.run_sync(sys.stdin.readline)


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        crewgraph, crews, db = sys.argv[2:5]
        params = StdioServerParameters(command=crewgraph, args=["mcp", "--crews", crews, "--db", db])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await scenario(session)
    else:
        url, token = sys.argv[2:4]
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http, streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await scenario(session)
    print("ok", flush=True)


anyio.run(main)
