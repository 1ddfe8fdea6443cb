import ChappieEmulator
import Foundation
import Testing

@Suite("chappie against a separate emulator")
struct CLIInteractiveTests {
    @Test("chappie emulator --port 0 serves other clients until interrupted, then exits 0")
    func emulatorCommand() async throws {
        let running = try RunningCLI(["emulator", "--port", "0", "--json", "--poll-interval", "1", "--approve-after", "1"],
                                     environment: CLIProcess.isolatedEnvironment())
        let line = try #require(await running.firstLine { $0.contains("listening") })
        let url = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["url"] as? String)
        let environment = CLIProcess.isolatedEnvironment()
        let login = try await CLIProcess.run(["login", "--auth-url", url], environment: environment)
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let ask = try await CLIProcess.run(["ask", "hello over the wire", "--auth-url", url, "--backend-url", url + "/backend-api"], environment: environment)
        #expect(ask.status == 0, "stderr: \(ask.stderr)")
        #expect(ask.stdout.contains("hello over the wire"))
        let status = try await CLIProcess.run(["status", "--json", "--auth-url", url], environment: environment)
        #expect(status.stdout.contains(#""state":"signedIn""#))
        let logout = try await CLIProcess.run(["logout", "--auth-url", url], environment: environment)
        #expect(logout.stdout.contains("Signed out."))
        running.interrupt()
        #expect(await running.wait().status == 0)
    }

    @Test("Ctrl-C during a stream stops the request, closes the connection and exits 130")
    func interruptDuringStream() async throws {
        let emulator = try await ChappieEmulator.start(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1))
        let url = emulator.baseURL.absoluteString
        let environment = CLIProcess.isolatedEnvironment()
        let login = try await CLIProcess.run(["login", "--auth-url", url], environment: environment)
        #expect(login.status == 0, "stderr: \(login.stderr)")
        await emulator.enqueue(.stall)
        let running = try RunningCLI(["ask", "never answered", "--auth-url", url, "--backend-url", url + "/backend-api"], environment: environment)
        // Bounded wait for the request to reach the emulator (the CLI prints nothing before the reply).
        var reached = false
        for _ in 0..<500 where !reached {
            reached = await emulator.recordedRequests().contains { $0.path == "/backend-api/codex/responses" }
            if !reached { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(reached, "the CLI never sent its request")
        running.interrupt()
        let result = await running.wait()
        #expect(result.status == 130)
        #expect(result.stderr.contains("interrupted"))
        await emulator.shutdown()
    }
}
