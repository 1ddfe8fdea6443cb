import ChappieTestSupport
import Foundation

/// `Clients/websockets_server.py` running as a subprocess: the Python `websockets` server that
/// Chappie's own WebSocket client is tested against. It is killed when released (or after two
/// minutes).
final class WebsocketsServer {
    /// The loopback port it listens on.
    let port: Int
    private let process: TestProcess

    static let script = ClientAvailability.clientsDirectory.appendingPathComponent("websockets_server.py").path

    /// Starts a server with permessage-deflate `deflate` (`off`, `default`, `no-context`), over
    /// TLS with `tls` when given.
    init(deflate: String = "default", tls: TestCertificates.Pair? = nil) async throws {
        var arguments = [ClientAvailability.python3, Self.script, "--deflate", deflate]
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        process = try TestProcess(ClientAvailability.python, arguments, timeLimit: .seconds(120))
        guard let line = try await process.nextLine(), line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            let ending = try await process.wait()
            throw StartFailure(description: "websockets_server.py exited with \(ending.status): \(ending.stderr)")
        }
        self.port = port
    }

    /// The next line the server prints (`CLOSED <code> <reason>` when a connection ends).
    func nextLine() async -> String? { (try? await process.nextLine()) ?? nil }

    /// The server did not start.
    struct StartFailure: Error, CustomStringConvertible {
        /// Why.
        var description: String
    }
}
