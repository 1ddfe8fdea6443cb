#!/usr/bin/env python3
"""Exercises WebSocket framing edge cases against the Chappie emulator with the `websockets` library.

Usage:
  websockets_framing.py URL ACCESS_TOKEN                      the framing scenarios below
  websockets_framing.py URL ACCESS_TOKEN close-after-accept   expects a close (prints its code)
  websockets_framing.py URL ACCESS_TOKEN refused               expects a refused handshake (prints its status)

URL is the emulator's `ws://127.0.0.1:PORT/backend-api/codex/responses` (PROTOCOL §6). Framing
scenarios, each printing `OK <name>` (and `TEXT: <text>` for streamed answers): a prewarm
`response.create` with `generate:false` and empty input; a turn chained on its
`previous_response_id`; a create sent as a fragmented message (text + continuation frames);
ping/pong; the close handshake with codes 1000 and 4000 echoed; a binary frame (the emulator closes
with 1003); a 16 MiB text frame (closed with 1009). The library masks every client frame and
rejects masked server frames, so each answered request also checks masking. Exits 1 on any
violation, printing `FAIL: …` to standard error. Never prints the token.
"""
import json
import sys

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

TIMEOUT = 60


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def open_socket(url, token, **extra):
    return connect(
        url,
        additional_headers={"Authorization": f"Bearer {token}", "OpenAI-Beta": "responses_websockets=2026-02-06"},
        proxy=None,
        open_timeout=TIMEOUT,
        close_timeout=TIMEOUT,
        ping_interval=None,
        max_size=None,
        **extra,
    )


def create(**fields):
    frame = {
        "type": "response.create",
        "model": "gpt-5.5",
        "instructions": "You are a conformance test.",
        "input": [],
        "store": False,
    }
    frame.update(fields)
    return json.dumps(frame)


def user(text):
    return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]


def read_response(ws, name):
    """Reads text frames up to `response.completed`; returns the events."""
    events = []
    while True:
        try:
            message = ws.recv(timeout=TIMEOUT)
        except (TimeoutError, ConnectionClosed) as error:
            fail(f"{name}: no response.completed ({error!r})")
        if not isinstance(message, str):
            fail(f"{name}: the server sent a binary frame")
        event = json.loads(message)
        events.append(event)
        if event.get("type") in ("error", "response.failed"):
            fail(f"{name}: {event}")
        if event.get("type") == "response.completed":
            return events


def text_of(events):
    return "".join(e["delta"] for e in events if e.get("type") == "response.output_text.delta")


def expect_close(ws, name, code):
    try:
        message = ws.recv(timeout=TIMEOUT)
        fail(f"{name}: expected close {code}, got a message {message[:80]!r}")
    except ConnectionClosed as error:
        received = error.rcvd.code if error.rcvd else None
        if received != code:
            fail(f"{name}: expected close {code}, got {received} ({error!r})")
    except TimeoutError:
        fail(f"{name}: no close {code} within {TIMEOUT} s")
    print(f"OK {name}")


def framing(url, token):
    with open_socket(url, token) as ws:
        # Prewarm: generate:false with an empty input answers created (and the turn state in
        # response.metadata, as the Codex backend sends it) + completed, no output.
        ws.send(create(generate=False))
        events = read_response(ws, "prewarm")
        types = [e["type"] for e in events]
        if types != ["codex.rate_limits", "response.created", "response.metadata", "response.completed"]:
            fail(f"prewarm: events {types}")
        if events[-1]["response"]["output"] != []:
            fail("prewarm: output is not empty")
        print("OK prewarm")

        # Chaining: only the new items, on top of the prewarm response.
        ws.send(create(previous_response_id=events[-1]["response"]["id"], input=user("chained over websockets")))
        chained = read_response(ws, "chain")
        print("OK chain")
        print(f"TEXT: {text_of(chained)}")

        # A fragmented message: one text frame and two continuation frames.
        frame = create(input=user("fragmented over websockets"))
        third = len(frame) // 3
        ws.send([frame[:third], frame[third : 2 * third], frame[2 * third :]])
        print("OK fragmented")
        print(f"TEXT: {text_of(read_response(ws, 'fragmented'))}")

        # Ping/pong with a payload.
        if not ws.ping(b"chappie").wait(TIMEOUT):
            fail("ping: no pong")
        print("OK ping")

        # Close handshake: the server echoes the code.
        ws.close(1000, "done")
        if ws.protocol.close_rcvd is None or ws.protocol.close_rcvd.code != 1000:
            fail(f"close 1000: received {ws.protocol.close_rcvd}")
        print("OK close 1000")

    with open_socket(url, token) as ws:
        ws.close(4000, "application code")
        if ws.protocol.close_rcvd is None or ws.protocol.close_rcvd.code != 4000:
            fail(f"close 4000: received {ws.protocol.close_rcvd}")
        print("OK close 4000")

    with open_socket(url, token) as ws:
        ws.send(b"\x00\x01binary")
        expect_close(ws, "binary 1003", 1003)

    with open_socket(url, token, compression=None) as ws:
        try:
            ws.send("x" * (16 * 1024 * 1024))
        except ConnectionClosed:
            pass
        expect_close(ws, "too big 1009", 1009)


def close_after_accept(url, token):
    with open_socket(url, token) as ws:
        try:
            ws.recv(timeout=TIMEOUT)
            fail("close-after-accept: got a message")
        except ConnectionClosed as error:
            print(f"CLOSE: {error.rcvd.code if error.rcvd else None}")


def refused(url, token):
    try:
        with open_socket(url, token):
            fail("refused: the handshake succeeded")
    except InvalidStatus as error:
        print(f"STATUS: {error.response.status_code}")


def main():
    url, token = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else "framing"
    {"framing": framing, "close-after-accept": close_after_accept, "refused": refused}[mode](url, token)


if __name__ == "__main__":
    main()
