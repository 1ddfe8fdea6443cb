#!/usr/bin/env python3
"""A WebSocket server built on the `websockets` library (a peer nobody in this repository wrote),
for Chappie's own RFC 6455 client to talk to.

Usage:
  websockets_server.py [--tls CERT KEY] [--deflate off|default|no-context]

Listens on 127.0.0.1 at a free port and prints `PORT <n>`, then serves until killed. With --tls
it speaks wss with the given certificate chain and key. --deflate picks permessage-deflate: off,
the library's default offer answer, or no-context (server_ and client_no_context_takeover with
10-bit windows). Every text message from the client is a command:

  echo <text>             answers <text>
  fragments <a> <b> ...   answers one message sent as one fragment per word
  ping <data>             sends a ping, waits for its pong, answers `pong <data>`
  close <code> <reason>   closes with that code and reason
  binary                  answers the binary message 00 01 02 FF
  extensions              answers the negotiated Sec-WebSocket-Extensions (or `none`)
  header <name>           answers the value of that request header (or `none`)
  large <n>               answers n characters: 8-digit hex counters 00000000, 00000001, ...
  sni                     answers the TLS server name the client sent (SNI), or `none`

When a connection ends the server prints `CLOSED <code> <reason>` with the close code the client
sent (or `CLOSED none`). Never prints a header value other than the one asked for.
"""
import argparse
import asyncio
import ssl
import sys

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory


SERVER_NAMES = {}


def remember_server_name(ssl_object, server_name, context):
    SERVER_NAMES[id(ssl_object)] = server_name


def large(count):
    return "".join(f"{index:08x}" for index in range(count // 8))[:count]


async def handler(ws):
    try:
        async for message in ws:
            if not isinstance(message, str):
                await ws.send("binary received")
                continue
            command, _, rest = message.partition(" ")
            if command == "echo":
                await ws.send(rest)
            elif command == "fragments":
                await ws.send(rest.split(" "))
            elif command == "ping":
                waiter = await ws.ping(rest.encode())
                await waiter
                await ws.send(f"pong {rest}")
            elif command == "close":
                code, _, reason = rest.partition(" ")
                await ws.close(int(code), reason)
            elif command == "binary":
                await ws.send(bytes([0, 1, 2, 255]))
            elif command == "extensions":
                await ws.send(ws.response.headers.get("Sec-WebSocket-Extensions") or "none")
            elif command == "header":
                await ws.send(ws.request.headers.get(rest) or "none")
            elif command == "large":
                await ws.send(large(int(rest)))
            elif command == "sni":
                ssl_object = ws.transport.get_extra_info("ssl_object")
                await ws.send(SERVER_NAMES.get(id(ssl_object)) or "none")
            else:
                await ws.send(f"unknown command {command}")
    except ConnectionClosed:
        pass
    finally:
        await ws.wait_closed()
        received = ws.protocol.close_rcvd
        print(f"CLOSED {received.code} {received.reason}" if received else "CLOSED none", flush=True)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--deflate", choices=["off", "default", "no-context"], default="default")
    options = parser.parse_args()
    context = None
    if options.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*options.tls)
        context.sni_callback = remember_server_name
    extensions = {}
    if options.deflate == "off":
        extensions = {"compression": None}
    elif options.deflate == "no-context":
        factory = ServerPerMessageDeflateFactory(
            server_no_context_takeover=True, client_no_context_takeover=True, server_max_window_bits=10, client_max_window_bits=10
        )
        extensions = {"compression": None, "extensions": [factory]}
    async with serve(handler, "127.0.0.1", 0, ssl=context, max_size=None, ping_interval=None, **extensions) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
