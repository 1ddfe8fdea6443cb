import ChappieEmulator
@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

/// A client on `transport` against a hostile `backend`, holding `credential`.
private func hostileClient(_ transport: TransportKind, backend: URL, credential: ChappieCredential) async throws -> ChappieClient {
    let configuration = ChappieConfiguration(streamingTransportPolicy: .httpSSEOnly,
                                             endpoints: ChappieEndpoints(authIssuer: backend, backend: backend.appending(path: "backend-api")))
    return ChappieClient(configuration: try await ChappieAuthFixtures.signedIn(configuration, credential: credential),
                         transport: transport.make(), timeSource: ChappieVirtualTime().timeSource)
}

@Suite("Header injection")
struct HeaderInjectionTests {
    @Test("field syntax: CR, LF, NUL, controls, DEL and edge whitespace are refused; obs-text and inner spaces pass",
          arguments: [
              ("acct-1", true), ("Bearer a.b.c", true), ("", true), ("caf\u{E9}", true), ("a\tb", true),
              ("a\r\nX-Injected: 1", false), ("a\nb", false), ("a\rb", false), ("a\u{0}b", false), ("a\u{7F}", false),
              ("a\u{1B}[31m", false), (" a", false), ("a ", false),
          ])
    func fieldValues(value: String, valid: Bool) {
        #expect(HTTPFieldSyntax.isFieldValue(value) == valid)
    }

    @Test("field names must be tokens", arguments: [("x-codex-turn-state", true), ("ChatGPT-Account-ID", true), ("", false),
                                                    ("a b", false), ("a:b", false), ("a\r\nb", false)])
    func fieldNames(name: String, valid: Bool) {
        #expect(HTTPFieldSyntax.isToken(name) == valid)
    }

    @Test("a transport refuses a header value with CR LF before anything is sent", arguments: TransportKind.allCases)
    func transportRefuses(_ transport: TransportKind) async throws {
        let server = try RawTestServer(.answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: server.url.appending(path: "x"), headers: ["x-test": "a\r\nX-Injected: 1"])
        let error = await #expect(throws: TransportError.self) { _ = try await transport.make().send(request) }
        #expect(error == .invalidHeaderField("x-test"))
        #expect(server.connections == 0)
    }

    @Test("an account id claim holding CR LF never becomes a header: typed error, nothing sent", arguments: TransportKind.allCases)
    func accountIDClaim(_ transport: TransportKind) async throws {
        let server = try RawTestServer(.answer("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"models\":[]}"))
        defer { server.stop() }
        let hostile = ChappieAuthFixtures.credential(accountID: "acct-1\r\nX-Injected: 1\r\n\r\nGET /smuggled HTTP/1.1")
        let client = try await hostileClient(transport, backend: server.url, credential: hostile)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.models() }
        guard case .invalidResponse(let message)? = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
        #expect(message.contains("ChatGPT-Account-ID") && !message.contains("X-Injected"))
        #expect(server.connections == 0)
        #expect(!server.receivedHeads.joined().contains("X-Injected"))
    }

    @Test("a turn state holding CR LF from response.metadata is dropped, never kept to be sent back")
    func turnStateFromMetadata() throws {
        let event = #"{"type":"response.metadata","headers":{"x-codex-turn-state":"ts_1\r\nX-Injected: 1"}}"#
        guard case .turnState(let hostile)? = ResponsesEvent.decode(event, fallbackType: nil) else {
            Issue.record("the metadata event was not decoded")
            return
        }
        let state = TurnState()
        state.record(hostile)
        #expect(state.value == nil)
        state.record("ts_2")
        #expect(state.value == "ts_2")
    }
}
