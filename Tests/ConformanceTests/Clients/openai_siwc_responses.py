#!/usr/bin/env python3
"""Drives the emulator's public API (`/v1`) on a Sign in with ChatGPT token with the `openai` library.

Usage: openai_siwc_responses.py BASE_URL ACCESS_TOKEN

BASE_URL is the emulator's `<base>/v1`; the client is built as SIWC's documentation shows it
(`OpenAI(base_url=…, api_key=<access token>, max_retries=0)`). Scenarios, each streamed with
`store=False, stream=True`, every event parsed into the library's typed class for its `type` and
validated strictly (as openai_responses_stream.py does):
  1. text: message items carry `phase`; the deltas add up to the completed text;
  2. a function tool inside a `namespace` tool: the call names its namespace; the call and its
     output sent back as input give the final answer (a tool round trip);
  3. the same tool in an `additional_tools` input item;
  4. a rejected field (`temperature`) and a flat function tool raise BadRequestError with
     `subscription_sharing_unsupported_capability` and the field as `param`;
  5. the catalog: `models.list()` reads the API-key shape (`data`), so the raw GET of `/models`
     through the same client reads `{"models":[…]}`.
Prints `TEXT: …`, `CALL: …`, `REFUSED: <param>` and `MODELS: <listed slugs>`; exits 1 on any violation.
"""
import sys
import typing

import openai
from openai import OpenAI
from openai.types.responses import ResponseStreamEvent


def event_classes():
    union = typing.get_args(ResponseStreamEvent)[0]
    mapping = {}
    for cls in typing.get_args(union):
        for literal in typing.get_args(cls.model_fields["type"].annotation):
            mapping[literal] = cls
    return mapping


CLASSES = event_classes()


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def stream(client, scenario, input_items, **extra):
    events = []
    for event in client.responses.create(model="gpt-5.5", input=input_items, store=False, stream=True, **extra):
        expected = CLASSES.get(event.type)
        if expected is None:
            fail(f"{scenario}: unknown event type {event.type!r}")
        if type(event) is not expected:
            fail(f"{scenario}: {event.type} parsed as {type(event).__name__}")
        try:
            expected.model_validate(event.to_dict())
        except Exception as error:
            fail(f"{scenario}: {event.type} does not match the schema: {error}")
        if event.sequence_number != len(events):
            fail(f"{scenario}: sequence_number {event.sequence_number} at position {len(events)}")
        events.append(event)
    if not events or events[-1].type != "response.completed":
        fail(f"{scenario}: last event is {events[-1].type if events else None}")
    return events


def done_items(events):
    """The output items, rebuilt from output_item.done (completed.output may be empty)."""
    return [e.item for e in events if e.type == "response.output_item.done"]


def user(text):
    return {"role": "user", "content": [{"type": "input_text", "text": text}]}


WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Looks up the weather",
    "strict": False,
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def round_trip(client, scenario, first_input, **extra):
    events = stream(client, scenario, first_input, **extra)
    calls = [item for item in done_items(events) if item.type == "function_call"]
    if len(calls) != 1:
        fail(f"{scenario}: expected one function call, got {done_items(events)}")
    call = calls[0]
    print(f"CALL: {scenario} {call.namespace or '-'} {call.name} {call.arguments}")
    second_input = first_input + [
        call.to_dict(),
        {"type": "function_call_output", "call_id": call.call_id, "output": "sunny, 21 C"},
    ]
    events = stream(client, scenario + " (output)", second_input, **extra)
    messages = [item for item in done_items(events) if item.type == "message"]
    print(f"TEXT: {scenario} {messages[0].content[0].text}")


def main():
    base_url, token = sys.argv[1], sys.argv[2]
    client = OpenAI(base_url=base_url, api_key=token, max_retries=0, timeout=60)

    events = stream(client, "text", [user("hello plan")], instructions="You are a conformance test.")
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    messages = [item for item in done_items(events) if item.type == "message"]
    if not messages or messages[0].phase not in ("commentary", "final_answer"):
        fail(f"text: message phase is {messages[0].phase if messages else None!r}")
    if text != messages[0].content[0].text:
        fail("text: deltas do not add up to the message")
    print(f"TEXT: text {text}")

    namespace = {"type": "namespace", "name": "weather", "description": "Weather tools", "tools": [WEATHER]}
    round_trip(client, "namespace", [user('use tool get_weather {"city":"Paris"}')], tools=[namespace])
    additional = {"type": "additional_tools", "role": "developer", "tools": [WEATHER]}
    round_trip(client, "additional_tools", [additional, user('use tool get_weather {"city":"Oslo"}')])

    for label, extra in (("temperature", {"temperature": 0.2}), ("flat tool", {"tools": [WEATHER]})):
        try:
            stream(client, label, [user("refuse me")], **extra)
            fail(f"{label}: accepted")
        except openai.BadRequestError as error:
            body = error.body or {}
            if body.get("code") != "subscription_sharing_unsupported_capability":
                fail(f"{label}: code {body.get('code')!r}")
            print(f"REFUSED: {body.get('param')}")

    catalog = client.get("/models", cast_to=object)
    if not isinstance(catalog, dict) or "models" not in catalog:
        fail(f"models: unexpected body {catalog!r}")
    listed = [m["slug"] for m in catalog["models"] if m.get("visibility") == "list"]
    if len(listed) == len(catalog["models"]):
        fail("models: no hidden entry")
    print("MODELS: " + " ".join(listed))


if __name__ == "__main__":
    main()
