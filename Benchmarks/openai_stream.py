"""Peer measurement for chappie-bench: stream one response from the emulator with the openai client.

Usage: python3 openai_stream.py BACKEND_CODEX_URL ACCESS_TOKEN PROMPT
Prints {"seconds": float, "cpu_seconds": float, "characters": int, "first_delta_seconds": float}:
wall and CPU seconds of the streaming call alone (the library import and client set-up are not
counted), so the figure is what the library spends per reply.
"""
import json
import sys
import time

from openai import OpenAI


def main() -> None:
    base, token, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
    client = OpenAI(base_url=base, api_key=token)
    start = time.perf_counter()
    cpu_start = time.process_time()
    characters = 0
    first_delta = None
    stream = client.responses.create(model="gpt-5.5", instructions="bench", input=[{"role": "user", "content": prompt}],
                                     store=False, stream=True)
    for event in stream:
        if event.type == "response.output_text.delta":
            if first_delta is None:
                first_delta = time.perf_counter() - start
            characters += len(event.delta)
    print(json.dumps({"seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu_start,
                      "characters": characters, "first_delta_seconds": first_delta}))


if __name__ == "__main__":
    main()
