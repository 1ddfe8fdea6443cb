@testable import ChappieTransport
import Foundation
import Testing

@Suite("The opening handshake: the request, the response head at every chunk boundary, and its checks (RFC 6455 §4)")
struct WebSocketHandshakeTests {
    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
    static let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    static func response(_ headers: [(String, String)], status: Int = 101) -> WebSocketHandshakeResponse {
        WebSocketHandshakeResponse(status: status, headers: HTTPFields(headers.map { HTTPField(name: $0.0, value: $0.1) }))
    }

    static let upgrade: [(String, String)] = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", sampleAccept)]

    #if os(Linux)
    @Test("The accept value of RFC 6455's sample key, with SHA-1 from the system libcrypto")
    func sampleAcceptValue() throws {
        let openSSL = try OpenSSLLibrary.shared.get()
        #expect(WebSocketHandshake(key: Self.sampleKey).expectedAccept(sha1: openSSL.sha1) == Self.sampleAccept)
    }
    #endif

    @Test("Keys are 16 random bytes in base64, fresh for every handshake")
    func keys() {
        let keys = (0..<16).map { _ in WebSocketHandshake().key }
        #expect(keys.allSatisfy { Data(base64Encoded: $0)?.count == 16 })
        #expect(Set(keys).count == keys.count)
    }

    @Test("The request carries the upgrade, the deflate offer and the caller's headers as given; handshake headers stay ours")
    func request() throws {
        let endpoint = try WebSocketEndpoint(url: URL(string: "wss://chatgpt.com/backend-api/codex/responses?x=1")!)
        let headers: HTTPFields = ["Authorization": "Bearer abc.def", "Host": "evil.example", "sec-websocket-key": "forged", "OpenAI-Beta": "responses_websockets=2026-02-06"]
        let bytes = try WebSocketHandshake(key: Self.sampleKey).request(for: endpoint, headers: headers, offersDeflate: true)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == [
            "GET /backend-api/codex/responses?x=1 HTTP/1.1", "Host: chatgpt.com", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(Self.sampleKey)", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits",
            "Authorization: Bearer abc.def", "OpenAI-Beta: responses_websockets=2026-02-06", "", "",
        ].joined(separator: "\r\n"))
    }

    @Test("A header that could smuggle another, or a name that is not a token, is refused without echoing it", arguments: [
        ("X-A", "one\r\nAuthorization: stolen"), ("X-A", "one\nstolen"), ("X-A", "nul\u{0}stolen"), ("X A", "stolen"), ("", "stolen"), ("X:A", "stolen"),
    ])
    func headerInjection(name: String, value: String) throws {
        let endpoint = try WebSocketEndpoint(url: URL(string: "wss://example.com/")!)
        let error = #expect(throws: WebSocketError.self) { _ = try WebSocketHandshake().request(for: endpoint, headers: [name: value], offersDeflate: false) }
        guard case .unsupported(let message)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(!message.contains("stolen"))
    }

    @Test("Endpoints: default ports, IPv6 hosts, and plain ws only to literal loopback hosts")
    func endpoints() throws {
        let secure = try WebSocketEndpoint(url: URL(string: "wss://chatgpt.com/backend-api/codex/responses")!)
        #expect(secure.port == 443 && secure.isSecure && secure.hostHeader == "chatgpt.com" && !secure.isAddressLiteral)
        let local = try WebSocketEndpoint(url: URL(string: "ws://127.0.0.1:8080")!)
        #expect(local.requestTarget == "/" && local.hostHeader == "127.0.0.1:8080" && local.isAddressLiteral)
        let six = try WebSocketEndpoint(url: URL(string: "ws://[::1]:9000/x")!)
        #expect(six.host == "::1" && six.hostHeader == "[::1]:9000")
        #expect(try WebSocketEndpoint(url: URL(string: "ws://localhost/x")!).port == 80)
        #expect(try WebSocketEndpoint(url: URL(string: "ws://127.9.9.9/x")!).host == "127.9.9.9")
        for refused in ["ws://example.com/", "ws://127.0.0.1.example.com/", "ws://10.0.0.1/", "ws://[::2]/", "http://127.0.0.1/", "https://example.com/"] {
            let error = #expect(throws: WebSocketError.self, "\(refused)") { _ = try WebSocketEndpoint(url: URL(string: refused)!) }
            guard case .unsupported? = error else { Issue.record("\(refused): \(String(describing: error))"); continue }
        }
    }

    @Test("The response head is read the same whole, byte by byte and split at every index, leaving the frames after it")
    func responseChunks() throws {
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(Self.sampleAccept)\r\nx-codex-turn-state: ts_1\r\n\r\n"
        let wire = Array(head.utf8) + [0x81, 0x02, 0x68, 0x69]
        func read(_ chunks: [ArraySlice<UInt8>]) throws -> (WebSocketHandshakeResponse, [UInt8])? {
            var reader = WebSocketHandshakeResponseReader()
            for chunk in chunks {
                if let result = try reader.feed(chunk) {
                    let rest = chunks.drop { $0.endIndex <= chunk.endIndex }.flatMap { $0 }
                    return (result.response, result.leftover + rest)
                }
            }
            return nil
        }
        var splits: [[ArraySlice<UInt8>]] = [[wire[...]], wire.indices.map { wire[$0...$0] }]
        splits += (0...wire.count).map { [wire[..<$0], wire[$0...]] }
        for chunks in splits {
            let (response, leftover) = try #require(try read(chunks))
            #expect(response.status == 101)
            #expect(response.values("X-Codex-Turn-State") == ["ts_1"])
            #expect(leftover == [0x81, 0x02, 0x68, 0x69])
        }
    }

    @Test("A head over the cap or malformed is refused", arguments: [
        "HTTP/1.1 101 OK\r\nX: " + String(repeating: "a", count: 300), "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 1O1 OK\r\n\r\n", "HTTP/1.1 101 OK\r\n folded\r\n\r\n",
        "HTTP/1.1 101 OK\r\nno colon\r\n\r\n",
    ])
    func malformedHeads(text: String) {
        var reader = WebSocketHandshakeResponseReader(maximumHeadBytes: 256)
        let error = #expect(throws: WebSocketError.self) { _ = try reader.feed(Array(text.utf8)) }
        guard case .closed(1002, _)? = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test("Any status but 101 is a rejection with that status", arguments: [200, 301, 302, 400, 401, 403, 404, 426, 429, 500, 503])
    func rejections(status: Int) {
        #expect(throws: WebSocketError.handshakeRejected(status: status)) {
            _ = try Self.response([("Location", "wss://elsewhere.example/")], status: status).validate(expectedAccept: Self.sampleAccept, offeredDeflate: true)
        }
    }

    @Test("A 101 must upgrade to websocket with the right accept and nothing that was not offered")
    func upgradeChecks() throws {
        #expect(try Self.response(Self.upgrade).validate(expectedAccept: Self.sampleAccept, offeredDeflate: true) == nil)
        let listConnection = [("upgrade", "WebSocket"), ("connection", "keep-alive, upgrade"), ("sec-websocket-accept", Self.sampleAccept)]
        #expect(try Self.response(listConnection).validate(expectedAccept: Self.sampleAccept, offeredDeflate: false) == nil)
        let broken: [[(String, String)]] = [
            Array(Self.upgrade.dropFirst()), [Self.upgrade[0], Self.upgrade[2]], [Self.upgrade[0], Self.upgrade[1]],
            [Self.upgrade[0], Self.upgrade[1], ("Sec-WebSocket-Accept", "wrong=")],
            Self.upgrade + [("Sec-WebSocket-Accept", Self.sampleAccept)],
            Self.upgrade + [("Sec-WebSocket-Protocol", "chat")],
        ]
        for headers in broken {
            let error = #expect(throws: WebSocketError.self) { _ = try Self.response(headers).validate(expectedAccept: Self.sampleAccept, offeredDeflate: true) }
            guard case .closed(1002, _)? = error else { Issue.record("\(headers): \(String(describing: error))"); continue }
        }
    }

    @Test("permessage-deflate parameters the server may select", arguments: [
        ("permessage-deflate", PerMessageDeflateParameters()),
        ("permessage-deflate; server_no_context_takeover; client_no_context_takeover",
         PerMessageDeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true)),
        ("permessage-deflate; server_max_window_bits=10; client_max_window_bits=\"12\"",
         PerMessageDeflateParameters(serverMaxWindowBits: 10, clientMaxWindowBits: 12)),
        ("PerMessage-Deflate ;client_max_window_bits = 8", PerMessageDeflateParameters(clientMaxWindowBits: 8)),
    ])
    func deflateAccepted(value: String, expected: PerMessageDeflateParameters) throws {
        let parameters = try Self.response(Self.upgrade + [("Sec-WebSocket-Extensions", value)]).validate(expectedAccept: Self.sampleAccept, offeredDeflate: true)
        #expect(parameters == expected)
        #expect(parameters?.compressesOutgoingMessages == (expected.clientMaxWindowBits >= 9))
    }

    @Test("permessage-deflate answers that fail the connection", arguments: [
        "permessage-deflate; server_max_window_bits=16", "permessage-deflate; client_max_window_bits=7", "permessage-deflate; server_max_window_bits",
        "permessage-deflate; server_no_context_takeover=1", "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; mystery", "permessage-deflate, permessage-deflate", "x-webkit-deflate-frame",
    ])
    func deflateRefused(value: String) {
        let error = #expect(throws: WebSocketError.self) {
            _ = try Self.response(Self.upgrade + [("Sec-WebSocket-Extensions", value)]).validate(expectedAccept: Self.sampleAccept, offeredDeflate: true)
        }
        guard case .closed(1002, _)? = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test("An extension the client did not offer fails the connection")
    func deflateNotOffered() {
        #expect(throws: WebSocketError.self) {
            _ = try Self.response(Self.upgrade + [("Sec-WebSocket-Extensions", "permessage-deflate")]).validate(expectedAccept: Self.sampleAccept, offeredDeflate: false)
        }
    }
}
