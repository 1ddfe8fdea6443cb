import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

@Suite("chappie against a separate emulator")
struct CLIInteractiveTests {
    @Test("chappie emulator --port 0 serves other clients until interrupted, then exits 0")
    func emulatorCommand() async throws {
        let running = try CLIProcess.start(["emulator", "--port", "0", "--json", "--poll-interval", "1", "--approve-after", "1"],
                                     environment: CLIProcess.isolatedEnvironment())
        let line = try #require(try await running.firstLine { $0.contains("listening") })
        let url = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["url"] as? String)
        let environment = CLIProcess.isolatedEnvironment()
        let login = try await CLIProcess.run(["login", "--auth-url", url], environment: environment)
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let ask = try await CLIProcess.run(["ask", "hello over the wire", "--auth-url", url, "--backend-url", url + "/backend-api"], environment: environment)
        #expect(ask.status == 0, "stderr: \(ask.stderr)")
        #expect(ask.stdout.contains("hello over the wire"))
        let status = try await CLIProcess.run(["status", "--json", "--auth-url", url], environment: environment)
        #expect(status.stdout.contains(#""state":"signedIn""#))
        // the emulator's credential has a slot of its own: the default (real) slot is untouched
        let defaultSlot = try await CLIProcess.run(["status", "--json"], environment: environment)
        #expect(defaultSlot.stdout.contains(#""state":"signedOut""#))
        let logout = try await CLIProcess.run(["logout", "--auth-url", url], environment: environment)
        #expect(logout.stdout.contains("Signed out."))
        running.interrupt()
        #expect(try await running.wait().status == 0)
    }

    @Test("Ctrl-C during a stream stops the request, closes the connection and exits 130", .timeLimit(.minutes(1)))
    func interruptDuringStream() async throws {
        let emulator = try await ChappieEmulator.start(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1))
        let url = emulator.baseURL.absoluteString
        let environment = CLIProcess.isolatedEnvironment()
        let login = try await CLIProcess.run(["login", "--auth-url", url], environment: environment)
        #expect(login.status == 0, "stderr: \(login.stderr)")
        await emulator.enqueue(.stall)
        let running = try CLIProcess.start(["ask", "never answered", "--auth-url", url, "--backend-url", url + "/backend-api"], environment: environment)
        // The CLI prints nothing before the reply: wait until its request reaches the emulator.
        _ = await emulator.nextRequest(path: "/backend-api/codex/responses")
        running.interrupt()
        let result = try await running.wait()
        #expect(result.status == 130)
        #expect(result.stderr.contains("interrupted"))
        #expect(await emulator.nextClosedStream()?.duringResponse == true)
        await emulator.shutdown()
    }
}
