#if os(Linux)
import Foundation
import Testing
@testable import ChappieCore

@Suite(
    "Chappie's own WebSocket client against the Python websockets server, over ws and wss (issue 14)",
    .enabled(if: ClientAvailability.shouldRun(installed: ClientAvailability.hasWebsocketsPython), "websockets (PyPI) is not installed"),
    .timeLimit(.minutes(2))
)
struct RFC6455ClientConformanceTests {
    static let token = "Bearer conformance-token-0123456789"

    /// The text `large <n>` answers: 8-digit hex counters.
    static func large(_ count: Int) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for counter in 0..<(count / 8) {
            for shift in stride(from: 28, through: 0, by: -4) { bytes.append(digits[(counter >> shift) & 0xF]) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let twoMegabytes = large(2_000_000)
    static let oneMegabyte = large(1_000_000)

    static func open(_ url: String, trust: WebSocketTrust = .system, deflate: Bool = true) async throws -> RFC6455WebSocketConnection {
        try await RFC6455WebSocketConnector(trust: trust, offersPerMessageDeflate: deflate)
            .open(url: URL(string: url)!, headers: [("Authorization", token), ("X-Chappie-Test", "header as given")], timeout: 30)
    }

    static func ask(_ connection: RFC6455WebSocketConnection, _ command: String) async throws -> WebSocketMessage {
        try await connection.send(text: command)
        return try await connection.receive()
    }

    /// The exchange every configuration must pass; returns the negotiated extensions.
    static func exchange(_ connection: RFC6455WebSocketConnection) async throws -> String {
        #expect(try await ask(connection, "echo héllo 😀") == .text("héllo 😀"))
        #expect(try await ask(connection, "fragments frag ment ed") == .text("fragmented"))
        #expect(try await ask(connection, "ping are-you-there") == .text("pong are-you-there"))
        #expect(try await ask(connection, "binary") == .binary(Data([0, 1, 2, 255])))
        #expect(try await ask(connection, "header Authorization") == .text(token))
        #expect(try await ask(connection, "header X-Chappie-Test") == .text("header as given"))
        #expect(try await ask(connection, "large 2000000") == .text(twoMegabytes))
        let big = oneMegabyte
        #expect(try await ask(connection, "echo " + big) == .text(big))
        #expect(try await ask(connection, "echo " + big) == .text(big))
        guard case .text(let extensions) = try await ask(connection, "extensions") else { throw WebSocketError.closed(code: 1003, reason: "binary") }
        return extensions
    }

    @Test("ws: echo, fragments, ping, binary, headers, large messages, and close codes both ways", arguments: ["default", "off", "no-context"])
    func plain(deflate: String) async throws {
        try #require(ClientAvailability.hasWebsocketsPython, "websockets (PyPI) is required on CI: pip install -r Tests/ConformanceTests/Clients/requirements.txt")
        // given
        let server = try await WebsocketsServer(deflate: deflate)
        let connection = try await Self.open("ws://127.0.0.1:\(server.port)/")
        // when
        let extensions = try await Self.exchange(connection)
        // then
        switch deflate {
        case "off": #expect(extensions == "none")
        case "no-context": #expect(extensions.contains("permessage-deflate") && extensions.contains("client_no_context_takeover"))
        default: #expect(extensions.hasPrefix("permessage-deflate"))
        }
        // and the server's close code reaches the client, whose answer echoes it
        try await connection.send(text: "close 4001 bye")
        let error = await #expect(throws: WebSocketError.self) { _ = try await connection.receive() }
        #expect(error == .closed(code: 4001, reason: "bye"))
        #expect(await server.nextLine() == "CLOSED 4001 ")
        // and a client close reaches the server with its code
        let second = try await Self.open("ws://127.0.0.1:\(server.port)/", deflate: deflate != "off")
        #expect(try await Self.ask(second, "echo again") == .text("again"))
        second.close(code: 4002)
        #expect(await server.nextLine() == "CLOSED 4002 ")
    }

    @Test(
        "wss with a test CA: the same exchange by host name and by IP address, TLS verified against the CA file",
        .enabled(if: ClientAvailability.shouldRun(installed: TestCertificates.isAvailable), "openssl is not installed")
    )
    func secure() async throws {
        try #require(ClientAvailability.hasWebsocketsPython && TestCertificates.isAvailable, "websockets (PyPI) and openssl are required on CI")
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await WebsocketsServer(tls: certificates.server)
        for host in ["localhost", "127.0.0.1"] {
            let connection = try await Self.open("wss://\(host):\(server.port)/", trust: .certificateFile(certificates.authority))
            #expect(try await Self.exchange(connection).hasPrefix("permessage-deflate"))
            // SNI carries a host name, never an address literal (RFC 6066 §3)
            #expect(try await Self.ask(connection, "sni") == .text(host == "localhost" ? "localhost" : "none"))
            connection.close(code: 1000)
            #expect(await server.nextLine() == "CLOSED 1000 ")
        }
    }

    @Test(
        "wss is refused (1015) for a certificate issued to another name, a self-signed one, and a CA the trust store lacks",
        .enabled(if: ClientAvailability.shouldRun(installed: TestCertificates.isAvailable), "openssl is not installed")
    )
    func secureRefusals() async throws {
        try #require(ClientAvailability.hasWebsocketsPython && TestCertificates.isAvailable, "websockets (PyPI) and openssl are required on CI")
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let cases: [(TestCertificates.Pair, WebSocketTrust, String)] = [
            (certificates.otherName, .certificateFile(certificates.authority), "hostname mismatch"),
            (certificates.selfSigned, .certificateFile(certificates.authority), "self-signed"),
            (certificates.server, .system, "unable to get local issuer certificate"),
        ]
        for (pair, trust, expected) in cases {
            let server = try await WebsocketsServer(tls: pair)
            let error = await #expect(throws: WebSocketError.self) { _ = try await Self.open("wss://localhost:\(server.port)/", trust: trust) }
            guard case .closed(1015, let reason)? = error else { Issue.record("got \(String(describing: error))"); continue }
            #expect(reason.contains(expected), "\(reason)")
            #expect(!reason.contains("conformance-token"))
        }
    }
}
#endif
