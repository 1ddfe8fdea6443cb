"""Peer measurement for chappie-bench: stream one response from the emulator with the openai client.

Usage: python3 openai_stream.py BACKEND_CODEX_URL ACCESS_TOKEN PROMPT
Prints {"seconds": float, "characters": int}.
"""
import json
import sys
import time

from openai import OpenAI


def main() -> None:
    base, token, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
    client = OpenAI(base_url=base, api_key=token)
    start = time.perf_counter()
    characters = 0
    stream = client.responses.create(model="gpt-5.5", instructions="bench", input=[{"role": "user", "content": prompt}],
                                     store=False, stream=True)
    for event in stream:
        if event.type == "response.output_text.delta":
            characters += len(event.delta)
    print(json.dumps({"seconds": time.perf_counter() - start, "characters": characters}))


if __name__ == "__main__":
    main()
