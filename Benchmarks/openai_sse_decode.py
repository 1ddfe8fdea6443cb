"""Peer measurement for chappie-bench: decode an SSE file with the openai library's decoder.

Usage: python3 openai_sse_decode.py FILE CHUNK_BYTES
Prints {"seconds": float, "events": int} for decoding the file in chunks and parsing each event's
JSON data, the same work Chappie's decoder does.
"""
import json
import sys
import time

from openai._streaming import SSEDecoder


def main() -> None:
    path, chunk = sys.argv[1], int(sys.argv[2])
    data = open(path, "rb").read()
    chunks = [data[i:i + chunk] for i in range(0, len(data), chunk)]
    start = time.perf_counter()
    events = 0
    for event in SSEDecoder().iter_bytes(iter(chunks)):
        if event.data and event.data != "[DONE]":
            json.loads(event.data)
            events += 1
    print(json.dumps({"seconds": time.perf_counter() - start, "events": events}))


if __name__ == "__main__":
    main()
