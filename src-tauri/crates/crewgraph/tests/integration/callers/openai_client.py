"""Uses crews as models with the official Python SDK (PyPI `openai`) pointed at
`crewgraph serve` (the server's token as the API key), the way Open WebUI or a
script would: the model list, answers whole and streamed, a crew that waits for a
reply and goes on with the conversation's next message, one that fails, errors,
and a stream closed mid-run (prints `cancel-sent`, waits for a line on stdin while
the test checks the run ended cancelled, then `ok`).

    openai_client.py BASE_URL TOKEN
"""

import sys

import openai

base, token = sys.argv[1:3]
client = openai.OpenAI(base_url=f"{base}/v1", api_key=token, max_retries=0, timeout=120)
simulate = {"crewgraph": {"model": "simulate"}}


def check(condition, what):
    if not condition:
        raise AssertionError(what)


models = [m.id for m in client.models.list()]
for name in ["crew/exam", "crew/ask", "crew/fails", "crew/slow"]:
    check(name in models, f"{name} is a model: {models}")
check("crew/broken" not in models, models)

# Whole.
whole = client.chat.completions.create(model="crew/exam", messages=[{"role": "user", "content": "Start the exam"}], extra_body=simulate)
answer = whole.choices[0].message.content
check(answer.startswith("Both right"), whole)
check(whole.choices[0].finish_reason == "stop", whole)
news = whole.model_extra["crewgraph"]
check(news["status"] in ("completed", "terminated") and news["run_id"].startswith("run-"), news)
check(whole.id == f"chatcmpl-{news['run_id']}", whole.id)

# Streamed: handoffs on the way, the same answer at the end, usage when asked.
stream = client.chat.completions.create(
    model="crew/exam",
    messages=[{"role": "user", "content": "Start the exam"}],
    extra_body=simulate,
    stream=True,
    stream_options={"include_usage": True},
)
words, handoffs, finish, usage, last_news = [], [], None, None, None
for chunk in stream:
    extra = (chunk.model_extra or {}).get("crewgraph") or {}
    if extra.get("handoff"):
        handoffs.append(extra["handoff"])
    if extra.get("status"):
        last_news = extra
    if chunk.usage is not None:
        usage = chunk.usage
    for choice in chunk.choices:
        if choice.delta.content:
            words.append(choice.delta.content)
        if choice.finish_reason:
            finish = choice.finish_reason
check("".join(words) == answer, f"{words!r} != {answer!r}")
check(len(handoffs) >= 2 and all("→" in h for h in handoffs), handoffs)
check(finish == "stop", finish)
check(usage is not None, "a usage chunk when asked for")
check(last_news["status"] in ("completed", "terminated"), last_news)

# A crew that waits for a reply: the conversation's next message goes on with it.
first = [{"role": "user", "content": "hello"}]
asked = client.chat.completions.create(model="crew/ask", messages=first, extra_body=simulate)
question = asked.choices[0].message.content
run_id = asked.model_extra["crewgraph"]["run_id"]
check(asked.model_extra["crewgraph"]["status"] == "paused", asked.model_extra)
check(question.startswith("What is your name?") and run_id in question, question)
conversation = first + [{"role": "assistant", "content": question}, {"role": "user", "content": "Ada"}]
resumed = client.chat.completions.create(model="crew/ask", messages=conversation, extra_body=simulate)
check(resumed.choices[0].message.content == "Hello, Ada. [END]", resumed)
check(resumed.model_extra["crewgraph"]["run_id"] == run_id, resumed.model_extra)
# The run has ended: the same conversation again starts a new run.
again = client.chat.completions.create(model="crew/ask", messages=conversation, extra_body=simulate)
check(again.model_extra["crewgraph"]["run_id"] != run_id, again.model_extra)

# A crew whose run fails: said in the answer and its status.
failed = client.chat.completions.create(model="crew/fails", messages=[{"role": "user", "content": "go"}], extra_body=simulate)
check(failed.model_extra["crewgraph"]["status"] == "failed", failed.model_extra)
check("ended failed" in failed.choices[0].message.content, failed)

# Errors, as the SDK raises them.
for model, messages, error in [
    ("crew/nope", [{"role": "user", "content": "x"}], openai.NotFoundError),
    ("gpt-4o", [{"role": "user", "content": "x"}], openai.NotFoundError),
    ("crew/exam", [{"role": "assistant", "content": "x"}], openai.BadRequestError),
    ("crew/exam", [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}], openai.BadRequestError),
]:
    try:
        client.chat.completions.create(model=model, messages=messages, extra_body=simulate)
        raise AssertionError(f"{model} {messages} was accepted")
    except error as raised:
        check(raised.body and raised.body.get("message"), raised.body)
stranger = openai.OpenAI(base_url=f"{base}/v1", api_key="wrong", max_retries=0)
try:
    stranger.models.list()
    raise AssertionError("a wrong token was accepted")
except openai.AuthenticationError:
    pass

# A stream closed while the crew runs: the run stops.
slow = client.chat.completions.create(
    model="crew/slow", messages=[{"role": "user", "content": "go"}], extra_body=simulate, stream=True
)
for chunk in slow:
    extra = (chunk.model_extra or {}).get("crewgraph") or {}
    if extra.get("handoff"):
        break
slow.close()
print("cancel-sent", flush=True)
sys.stdin.readline()
print("ok", flush=True)
