@testable import ChappieCore
@testable import ChappieTransport
import Foundation
import Testing

@Suite("Overall deadlines")
struct DeadlineTests {
    @Test("a server that trickles 2 bytes a second cannot hold a buffered request past its deadline",
          .timeLimit(.minutes(1)), arguments: TransportKind.allCases)
    func trickle(_ transport: TransportKind) async throws {
        let server = try RawTestServer(.drip(head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
                                             interval: 500_000))
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: server.url.appending(path: "oauth/token"), idleTimeout: 30, deadline: 1)
        let error = await #expect(throws: TransportError.self) { _ = try await transport.make().send(request) }
        #expect(error == .deadlineExceeded(1))
    }

    @Test("cancelling the caller ends a buffered request at once, deadline or not", .timeLimit(.minutes(1)))
    func cancelled() async throws {
        let server = try RawTestServer(.drip(head: "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n", interval: 500_000))
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: server.url.appending(path: "x"), idleTimeout: 30, deadline: 600)
        let task = Task { try await TransportKind.platformDefault.make().send(request) }
        while server.connections == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: (any Error).self) { _ = try await task.value }
    }
}
