#!/usr/bin/env python3
"""Streams Responses API calls from the Chappie emulator with the official `openai` library.

Usage: openai_responses_stream.py BASE_URL ACCESS_TOKEN

BASE_URL is the emulator's `<backend>/codex`. Every streamed event must map to the library's
typed class for its `type` (no generic fallback) and must validate strictly against that class's
schema; the final event must be `response.completed` with usage. Three scenarios run: plain text,
text with a reasoning summary, and a function call. Prints `TEXT: <assembled text>` per text
scenario and `CALL: <name> <arguments>` for the tool scenario. Exits 1 on any violation.
"""
import sys
import typing

from openai import OpenAI
from openai.types.responses import ResponseStreamEvent


def event_classes():
    """Maps each event `type` literal to its typed class in the library."""
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


def run(client, scenario, **extra):
    stream = client.responses.create(
        model="gpt-5.5",
        instructions="You are a conformance test.",
        input=[{"role": "user", "content": [{"type": "input_text", "text": scenario}]}],
        store=False,
        stream=True,
        **extra,
    )
    events = []
    for event in stream:
        expected = CLASSES.get(event.type)
        if expected is None:
            fail(f"{scenario}: unknown event type {event.type!r}")
        if type(event) is not expected:
            fail(f"{scenario}: {event.type} parsed as {type(event).__name__}, expected {expected.__name__}")
        try:
            expected.model_validate(event.to_dict())
        except Exception as error:  # pydantic.ValidationError
            fail(f"{scenario}: {event.type} does not match the schema: {error}")
        if event.sequence_number != len(events):
            fail(f"{scenario}: sequence_number {event.sequence_number} at position {len(events)}")
        events.append(event)
    if not events or events[-1].type != "response.completed":
        fail(f"{scenario}: last event is {events[-1].type if events else None}")
    if events[0].type != "response.created":
        fail(f"{scenario}: first event is {events[0].type}")
    usage = events[-1].response.usage
    if usage is None or usage.input_tokens <= 0 or usage.total_tokens != usage.input_tokens + usage.output_tokens:
        fail(f"{scenario}: bad usage {usage}")
    return events


def main():
    base_url, token = sys.argv[1], sys.argv[2]
    client = OpenAI(base_url=base_url, api_key=token, max_retries=0, timeout=60)

    events = run(client, "hello conformance")
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    if text != events[-1].response.output_text:
        fail("deltas do not add up to the completed output_text")
    print(f"TEXT: {text}")

    events = run(client, "think first", reasoning={"effort": "low", "summary": "auto"}, include=["reasoning.encrypted_content"])
    if not any(e.type == "response.reasoning_summary_text.delta" for e in events):
        fail("no reasoning summary deltas")
    if events[-1].response.output[0].type != "reasoning":
        fail("reasoning item is not first")
    print(f"TEXT: {events[-1].response.output_text}")

    tool = {
        "type": "function",
        "name": "get_weather",
        "description": "Looks up the weather",
        "strict": False,
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    events = run(client, 'use tool get_weather {"city":"Paris"}', tools=[tool])
    calls = [item for item in events[-1].response.output if item.type == "function_call"]
    if len(calls) != 1:
        fail(f"expected one function call, got {events[-1].response.output}")
    print(f"CALL: {calls[0].name} {calls[0].arguments}")


if __name__ == "__main__":
    main()
