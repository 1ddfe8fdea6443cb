import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A server that is slow to answer is neither silent for minutes nor waited for three times.
@Suite("chappie while the server does not answer")
struct CLIWaitingTests {
    @Test("on a terminal, ask shows that it waits for the server until the reply's first text",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)))
    func showsWaiting() async throws {
        try await CLIEmulator.with { emulator, isolated in
            var environment = isolated
            environment["NO_COLOR"] = ""
            try await CLIEmulator.signIn(emulator, environment: environment)
            // The head at once, then each event 3 s apart: seconds with nothing to show.
            await emulator.enqueue(.slowText("late reply", eventInterval: .seconds(3)))
            let ask = try PseudoTerminalSession(["ask", "hi", "--transport", "http"] + CLIEmulator.endpointArguments(emulator),
                                                environment: environment)
            defer { ask.terminate() }
            #expect(await ask.waitFor("Waiting for the server ("), "output: \(ask.shown)")
            #expect(await ask.waitFor("late reply"), "output: \(ask.shown)")
            // The waiting line was erased before the reply was printed.
            let shown = ask.shown
            let reply = try #require(shown.range(of: "late reply"))
            let lastWait = try #require(shown.range(of: "Waiting for the server (", options: .backwards))
            #expect(lastWait.lowerBound < reply.lowerBound)
            #expect(shown[lastWait.upperBound..<reply.lowerBound].contains("\r\u{1B}[2K"), "\(shown.debugDescription)")
        }
    }

    @Test("on a terminal, login shows that it waits for a sign-in server that does not answer",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)))
    func loginShowsWaiting() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        var environment = CLIProcess.isolatedEnvironment()
        environment["NO_COLOR"] = ""
        let login = try PseudoTerminalSession(["login", "--auth-url", "http://127.0.0.1:\(listener.port)"], environment: environment)
        defer { login.terminate() }
        #expect(await login.waitFor("Waiting for the sign-in server ("), "output: \(login.shown)")
        login.type("\u{03}")
    }
}

/// A loopback port that takes connections (the kernel completes the handshake) and never answers.
private struct SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
