#if os(Linux)
@testable import ChappieTransport
import Foundation
import Testing

@Suite("Chappie's RFC 6455 client refuses what a server must not send", .timeLimit(.minutes(1)))
struct RFC6455HostileServerTests {
    static let token = "Bearer hostile-test-token-0123456789"

    static func open(_ peer: RawWebSocketPeer, connector: RFC6455WebSocketConnector = RFC6455WebSocketConnector(), timeout: TimeInterval = 15)
        async throws -> RFC6455WebSocketConnection
    {
        try await connector.open(url: peer.url, headers: ["Authorization": token], timeout: timeout)
    }

    /// Expects `receive()` to fail with a close of `code`; returns the reason.
    @discardableResult
    static func expectClosed(_ connection: RFC6455WebSocketConnection, code: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> String? {
        do {
            let message = try await connection.receive()
            Issue.record("expected close \(code), got \(message)", sourceLocation: sourceLocation)
        } catch let WebSocketError.closed(actual, reason) {
            #expect(actual == code, "reason: \(reason)", sourceLocation: sourceLocation)
            return reason
        } catch {
            Issue.record("expected close \(code), got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test("The handshake sends the caller's headers as given, a fresh 16-byte key, and masks every frame with a fresh key")
    func handshakeAndMasking() async throws {
        try await RawWebSocketPeer.with({ connection in
            let head = connection.upgrade()
            connection.report(RawConnection.header("Authorization", in: head) ?? "no authorization")
            connection.report(RawConnection.header("Sec-WebSocket-Key", in: head) ?? "no key")
            connection.report(head.first ?? "")
            for _ in 0..<2 {
                guard let frame = connection.readFrame() else { return connection.report("no frame") }
                connection.report("\(frame.masked) \(frame.key) \(String(decoding: frame.payload, as: UTF8.self))")
            }
        }) { peer in
            // given
            let connection = try await Self.open(peer)
            defer { connection.close(code: 1000) }
            // when
            try await connection.send(text: "first")
            try await connection.send(text: "second")
            // then
            #expect(await peer.next() == Self.token)
            let key = try #require(await peer.next())
            #expect(Data(base64Encoded: key)?.count == 16)
            #expect(await peer.next() == "GET /socket HTTP/1.1")
            let first = try #require(await peer.next()), second = try #require(await peer.next())
            #expect(first.hasPrefix("true ") && first.hasSuffix(" first"))
            #expect(second.hasPrefix("true ") && second.hasSuffix(" second"))
            #expect(first.dropLast(6) != second.dropLast(7), "the masking keys must differ")
        }
    }

    @Test("A wrong Sec-WebSocket-Accept is refused with 1002 and the token is not in the error")
    func badAccept() async throws {
        try await RawWebSocketPeer.with({ $0.upgrade(accept: "dGhpcyBpcyB3cm9uZw==") }) { peer in
            let error = await #expect(throws: WebSocketError.self) { _ = try await Self.open(peer) }
            guard case .closed(1002, let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.contains("Sec-WebSocket-Accept"))
            #expect(!String(describing: error).contains("hostile-test-token"))
        }
    }

    @Test("A redirect is refused with its status, never followed to the other host", arguments: [301, 302, 307, 308])
    func redirectRefused(status: Int) async throws {
        try await RawWebSocketPeer.with({ _ in }) { elsewhere in
            try await RawWebSocketPeer.with({ connection in
                _ = connection.readRequestHead()
                connection.write(Array("HTTP/1.1 \(status) Moved\r\nLocation: ws://127.0.0.1:\(elsewhere.port)/socket\r\nContent-Length: 0\r\n\r\n".utf8))
            }) { peer in
                let error = await #expect(throws: WebSocketError.self) { _ = try await Self.open(peer) }
                #expect(error == .handshakeRejected(status: status))
                #expect(elsewhere.acceptedCount == 0)
            }
        }
    }

    @Test("A 101 answer that is not an upgrade, or selects what was not offered, is refused with 1002", arguments: [
        ["Sec-WebSocket-Protocol: chat"],
        ["Sec-WebSocket-Extensions: x-webkit-deflate-frame"],
        ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=16"],
        ["Sec-WebSocket-Extensions: permessage-deflate; unknown_parameter"],
    ])
    func invalidUpgrade(extraHeaders: [String]) async throws {
        try await RawWebSocketPeer.with({ $0.upgrade(extraHeaders: extraHeaders) }) { peer in
            let error = await #expect(throws: WebSocketError.self) { _ = try await Self.open(peer) }
            guard case .closed(1002, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test("A masked server frame is a protocol error: the client closes with 1002")
    func maskedServerFrame() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.writeFrame(opcode: 1, Array("masked".utf8), maskingKey: [1, 2, 3, 4])
            connection.expectClose()
        }) { peer in
            let connection = try await Self.open(peer)
            await Self.expectClosed(connection, code: 1002)
            #expect(await peer.next() == "close 1002")
            #expect(await peer.next() == "eof")
        }
    }

    @Test("Reserved bits without an extension are closed with 1002", arguments: [0x40, 0x20, 0x10])
    func reservedBits(rsv: Int) async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.writeFrame(opcode: 1, Array("x".utf8), rsv: UInt8(rsv))
            connection.expectClose()
        }) { peer in
            let connection = try await Self.open(peer)
            await Self.expectClosed(connection, code: 1002)
            #expect(await peer.next() == "close 1002")
        }
    }

    @Test("A frame over the 16 MiB limit is refused from its header with 1009")
    func oversizedFrame() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            // Only the header: the client must refuse before the payload arrives.
            connection.writeFrame(opcode: 1, [], claimedLength: WebSocketLimits.maximumFrameBytes + 1)
            connection.expectClose()
        }) { peer in
            let connection = try await Self.open(peer)
            await Self.expectClosed(connection, code: 1009)
            #expect(await peer.next() == "close 1009")
        }
    }

    @Test("A fragmented message over the limit is refused with 1009")
    func oversizedMessage() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.writeFrame(opcode: 1, [UInt8](repeating: 0x61, count: 600), fin: false)
            connection.writeFrame(opcode: 0, [UInt8](repeating: 0x61, count: 600))
            connection.expectClose()
        }) { peer in
            let connection = try await Self.open(peer, connector: RFC6455WebSocketConnector(maximumMessageBytes: 1000))
            await Self.expectClosed(connection, code: 1009)
            #expect(await peer.next() == "close 1009")
        }
    }

    @Test("A text message that is not UTF-8 is closed with 1007")
    func invalidUTF8() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.writeFrame(opcode: 1, [0x68, 0x69, 0xC3, 0x28])
            connection.expectClose()
        }) { peer in
            let connection = try await Self.open(peer)
            await Self.expectClosed(connection, code: 1007)
            #expect(await peer.next() == "close 1007")
        }
    }

    @Test("A binary frame is delivered as binary; a fragmented text with a ping in between is joined and the ping answered")
    func binaryFragmentsAndPing() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.writeFrame(opcode: 2, [0, 1, 2, 255])
            connection.writeFrame(opcode: 1, Array("Hel".utf8), fin: false)
            connection.writeFrame(opcode: 9, Array("are you there".utf8))
            connection.writeFrame(opcode: 0, Array("lo ".utf8), fin: false)
            connection.writeFrame(opcode: 0, Array("wörld".utf8))
            guard let pong = connection.readFrame() else { return connection.report("no pong") }
            connection.report("opcode \(pong.opcode) \(String(decoding: pong.payload, as: UTF8.self))")
        }) { peer in
            let connection = try await Self.open(peer)
            defer { connection.close(code: 1000) }
            #expect(try await connection.receive() == .binary(Data([0, 1, 2, 255])))
            #expect(try await connection.receive() == .text("Hello wörld"))
            #expect(await peer.next() == "opcode 10 are you there")
        }
    }

    @Test("With permessage-deflate accepted, sent messages carry RSV1 and inflate back; compressed server messages are inflated")
    func deflateNegotiated() async throws {
        try await RawWebSocketPeer.with({ connection in
            let head = connection.upgrade(extraHeaders: ["Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover"])
            connection.report(RawConnection.header("Sec-WebSocket-Extensions", in: head) ?? "no offer")
            guard let zlib = try? ZlibLibrary.shared.get(),
                let server = try? PerMessageDeflateCodec(zlib: zlib, parameters: PerMessageDeflateParameters(serverNoContextTakeover: true)),
                let frame = connection.readFrame()
            else { return connection.report("no frame") }
            let text = (try? server.inflate(frame.payload, maximumBytes: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? "not deflate"
            connection.report("rsv1 \(frame.rsv1) \(text)")
            let reply = server.deflate(Array("compressed reply, compressed reply".utf8)) ?? []
            connection.writeFrame(opcode: 1, reply, rsv: 0x40)
            connection.expectClose()
        }) { peer in
            let connection = try await Self.open(peer)
            #expect(await peer.next() == "permessage-deflate; client_max_window_bits")
            try await connection.send(text: "hello hello hello hello")
            #expect(await peer.next() == "rsv1 true hello hello hello hello")
            #expect(try await connection.receive() == .text("compressed reply, compressed reply"))
            connection.close(code: 1000)
            #expect(await peer.next() == "close 1000")
        }
    }

    @Test("The connection plan, which holds the Authorization header, prints without it")
    func planIsRedacted() throws {
        let plan = RFC6455IOLoop.Plan(
            endpoint: try WebSocketEndpoint(url: URL(string: "wss://example.com/socket")!), headers: ["Authorization": Self.token], deadline: .now,
            trust: .system, libraries: .system, offersPerMessageDeflate: true, maximumMessageBytes: 1, maximumHandshakeHeadBytes: 1,
            closeTimeout: .zero)
        var dumped = ""
        dump(plan, to: &dumped)
        for text in [String(describing: plan), String(reflecting: plan), dumped] {
            #expect(!text.contains("hostile-test-token"))
            #expect(text.contains("example.com"))
        }
    }

    @Test("A burst past the inbox watermark pauses reading and loses nothing: all messages in order, then the close", arguments: [true, false])
    func burstThenEnd(withCloseFrame: Bool) async throws {
        let count = 3 * RFC6455ConnectionCore.Policy.inboxHighWaterMessages
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            var burst: [UInt8] = []
            for index in 0..<count { burst += [0x81, UInt8(String(index).utf8.count)] + Array(String(index).utf8) }
            if withCloseFrame { burst += [0x88, 0x02, 0x03, 0xE8] }
            connection.write(burst)
            connection.report("sent")
            if withCloseFrame { connection.expectClose() }
        }) { peer in
            let connection = try await Self.open(peer)
            #expect(await peer.next() == "sent")
            for index in 0..<count {
                guard try await connection.receive() == .text(String(index)) else { Issue.record("message \(index) out of order"); return }
            }
            await Self.expectClosed(connection, code: withCloseFrame ? 1000 : 1006)
            if withCloseFrame { #expect(await peer.next() == "close 1000") }
        }
    }

    @Test("A close from the server is surfaced with its code and reason and answered with the same code")
    func serverClose() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.writeFrame(opcode: 1, Array("last words".utf8))
            connection.writeFrame(opcode: 8, [0x0F, 0xA0] + Array("going".utf8))
            connection.expectClose()
        }) { peer in
            let connection = try await Self.open(peer)
            #expect(try await connection.receive() == .text("last words"))
            let reason = await Self.expectClosed(connection, code: 4000)
            #expect(reason == "going")
            #expect(await peer.next() == "close 4000")
        }
    }

    @Test("A reset in the middle of a message is an abnormal closure (1006)")
    func resetMidMessage() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.writeFrame(opcode: 1, Array("half".utf8), claimedLength: 100)
            connection.reset()
        }) { peer in
            let connection = try await Self.open(peer)
            await Self.expectClosed(connection, code: 1006)
        }
    }

    @Test("After 101 and silence, receive waits; cancelling it ends that wait only: the connection stays open, nothing is lost")
    func silentServerCancelled() async throws {
        try await RawWebSocketPeer.with({ connection in
            connection.upgrade()
            connection.report("upgraded")
            // Answers the client's frame, sent after its receive was cancelled.
            guard let frame = connection.readFrame() else { return connection.report("no frame") }
            connection.report("frame \(String(decoding: frame.payload, as: UTF8.self))")
            connection.writeFrame(opcode: 1, Array("still open".utf8))
            connection.expectClose()
        }) { peer in
            // given
            let connection = try await Self.open(peer)
            #expect(await peer.next() == "upgraded")
            let waiting = Task { try await connection.receive() }
            // when
            waiting.cancel()
            // then
            let result = await waiting.result
            #expect(throws: CancellationError.self) { try result.get() }
            try await connection.send(text: "ping")
            #expect(await peer.next() == "frame ping")
            #expect(try await connection.receive() == .text("still open"))
            connection.close(code: 1000)
            #expect(await peer.next() == "close 1000")
            #expect(await peer.next() == "eof")
        }
    }

    @Test("A server that accepts TCP and never answers the handshake meets the connect deadline")
    func handshakeDeadline() async throws {
        try await RawWebSocketPeer.with({ connection in
            _ = connection.readRequestHead()
            connection.report("request read")
            connection.waitForEndOfStream()
            connection.report("client left")
        }) { peer in
            let error = await #expect(throws: WebSocketError.self) { _ = try await Self.open(peer, timeout: 0.2) }
            #expect(error == .openTimedOut)
            #expect(await peer.next() == "request read")
            #expect(await peer.next() == "client left")
        }
    }

    @Test("Cancelling a connect in progress ends it and closes the socket")
    func connectCancelled() async throws {
        try await RawWebSocketPeer.with({ connection in
            _ = connection.readRequestHead()
            connection.report("request read")
            connection.waitForEndOfStream()
            connection.report("client left")
        }) { peer in
            let connecting = Task { try await Self.open(peer) }
            #expect(await peer.next() == "request read")
            connecting.cancel()
            let result = await connecting.result
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(await peer.next() == "client left")
        }
    }

    @Test("An oversized handshake response head is refused")
    func oversizedHead() async throws {
        try await RawWebSocketPeer.with({ connection in
            _ = connection.readRequestHead()
            connection.write(Array(("HTTP/1.1 101 Switching Protocols\r\nX-Padding: " + String(repeating: "a", count: 20_000)).utf8))
            connection.waitForEndOfStream()
        }) { peer in
            let error = await #expect(throws: WebSocketError.self) { _ = try await Self.open(peer) }
            guard case .closed(1002, let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.contains("exceeds"))
        }
    }

    @Test("Plain ws:// is refused for a host that is not loopback, and a header that could smuggle another is refused unsent")
    func refusedBeforeConnecting() async throws {
        let plain = await #expect(throws: WebSocketError.self) {
            _ = try await RFC6455WebSocketConnector().open(url: URL(string: "ws://example.com/socket")!, headers: [], timeout: 5)
        }
        guard case .unsupported? = plain else { Issue.record("got \(String(describing: plain))"); return }
        try await RawWebSocketPeer.with({ connection in
            _ = connection.readRequestHead()
            connection.report("request arrived")
        }) { peer in
            let error = await #expect(throws: WebSocketError.self) {
                _ = try await RFC6455WebSocketConnector().open(url: peer.url, headers: ["X-Evil": "a\r\nAuthorization: Bearer stolen"], timeout: 5)
            }
            guard case .unsupported(let message)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(!message.contains("stolen"))
            #expect(peer.acceptedCount == 0)
        }
    }

    @Test("Without zlib, or when told not to, the client does not offer permessage-deflate")
    func noDeflateOffer() async throws {
        let withoutZlib = RFC6455WebSocketConnector.Libraries(
            openSSL: { OpenSSLLibrary.shared }, zlib: { Result { () throws(SystemLibrary.LoadError) in try ZlibLibrary.load("libz-chappie-missing.so.1") } })
        for connector in [RFC6455WebSocketConnector(libraries: withoutZlib), RFC6455WebSocketConnector(offersPerMessageDeflate: false)] {
            try await RawWebSocketPeer.with({ connection in
                let head = connection.upgrade()
                connection.report(RawConnection.header("Sec-WebSocket-Extensions", in: head) ?? "no offer")
            }) { peer in
                let connection = try await Self.open(peer, connector: connector)
                defer { connection.close(code: 1000) }
                #expect(await peer.next() == "no offer")
            }
        }
    }

    @Test("Without OpenSSL the connector reports unsupported (so the caller uses HTTP)")
    func missingOpenSSL() async throws {
        let libraries = RFC6455WebSocketConnector.Libraries(
            openSSL: { Result { () throws(SystemLibrary.LoadError) in try OpenSSLLibrary.load(ssl: "libssl-chappie-missing.so.3") } },
            zlib: { ZlibLibrary.shared })
        let error = await #expect(throws: WebSocketError.self) {
            _ = try await RFC6455WebSocketConnector(libraries: libraries).open(url: URL(string: "wss://example.com/")!, headers: [], timeout: 5)
        }
        guard case .unsupported(let message)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(message.contains("libssl-chappie-missing.so.3"))
    }
}
#endif
