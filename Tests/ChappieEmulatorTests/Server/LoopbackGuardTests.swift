import ChappieEmulator
import Foundation
import Testing

/// Sends `GET /codex/device` with `host` as the `Host` header (nil: none, as HTTP/1.0 allows) and
/// returns the status.
private func status(of emulator: ChappieEmulator, host: String?) async throws -> Int? {
    let connection = try RawHTTPConnection(port: emulator.port)
    connection.write("GET /codex/device HTTP/1.1\r\n" + (host.map { "Host: \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n")
    return await offPool { connection.readResponse()?.status }
}

@Suite("Only requests addressed to the emulator are answered")
struct LoopbackGuardTests {
    @Test("a Host naming the emulator on this machine is answered")
    func loopbackHosts() async throws {
        try await withEmulator { emulator, _ in
            for host in ["127.0.0.1:\(emulator.port)", "localhost:\(emulator.port)", "LOCALHOST:\(emulator.port)",
                         "[::1]:\(emulator.port)", "127.0.0.1", nil] {
                let answer = try await status(of: emulator, host: host)
                #expect(answer == 200, "Host: \(host ?? "none")")
            }
        }
    }

    @Test("a loopback Host with another port (a relay, an SSH tunnel, a debugging proxy in front) is answered")
    func relayedHosts() async throws {
        try await withEmulator { emulator, _ in
            for host in ["127.0.0.1:\(emulator.port + 1)", "localhost:8443", "[::1]:1"] {
                let answer = try await status(of: emulator, host: host)
                #expect(answer == 200, "Host: \(host)")
            }
        }
    }

    @Test("any other Host name (DNS rebinding) is 421 and not recorded")
    func foreignHosts() async throws {
        try await withEmulator { emulator, _ in
            for host in ["attacker.example:\(emulator.port)", "attacker.example", "127.0.0.1.nip.io:\(emulator.port)",
                         "localhost:abc", "[::1", "127.0.0.2:\(emulator.port)", ""] {
                let answer = try await status(of: emulator, host: host)
                #expect(answer == 421, "Host: \(host)")
            }
            #expect(await emulator.recordedRequests().isEmpty)
        }
    }

    @Test("the approval page refuses a cross-origin form post and leaves the code pending", arguments: [
        "http://attacker.example", "null", "https://127.0.0.1", "http://127.0.0.1", "http://localhost:1",
    ])
    func crossOriginApproval(origin: String) async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, http in
            // given: a code waiting for approval
            let code = try await http.postJSON("/api/accounts/deviceauth/usercode", ["client_id": "app_EMoamEEZ73f0CkXaXp7hrann"])
            let userCode = try #require(code.json["user_code"] as? String)
            // when: a page elsewhere posts the approval form
            let body = Data("user_code=\(userCode)&action=approve".utf8)
            let posted = try await http.send("POST", "/codex/device",
                                             headers: ["Content-Type": "application/x-www-form-urlencoded", "Origin": origin], body: body)
            // then
            #expect(posted.status == 403)
            #expect(await emulator.approve(userCode: userCode))  // still pending, so the test can still approve it
        }
    }

    @Test("the approval page accepts its own origin", arguments: ["127.0.0.1", "localhost"])
    func sameOriginApproval(host: String) async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, http in
            let code = try await http.postJSON("/api/accounts/deviceauth/usercode", ["client_id": "app_EMoamEEZ73f0CkXaXp7hrann"])
            let userCode = try #require(code.json["user_code"] as? String)
            let body = Data("user_code=\(userCode)&action=approve".utf8)
            let posted = try await http.send("POST", "/codex/device", headers: [
                "Content-Type": "application/x-www-form-urlencoded", "Origin": "http://\(host):\(emulator.port)",
            ], body: body)
            #expect(posted.status == 200)
            #expect(await emulator.approve(userCode: userCode) == false)  // already approved
        }
    }
}

@Suite("The request log is bounded")
struct RequestLogBoundTests {
    @Test("a body over 1 MiB is kept cut, with its full size, and the request still works", .timeLimit(.minutes(1)))
    func bodyCut() async throws {
        try await withEmulator { emulator, http in
            let big = Data(repeating: UInt8(ascii: "a"), count: 3 << 20)
            _ = try await http.send("POST", "/api/accounts/deviceauth/usercode", headers: ["Content-Type": "application/json"], body: big)
            let recorded = try #require(await emulator.recordedRequests().last)
            #expect(recorded.body.count == 1 << 20)
            #expect(recorded.bodyByteCount == 3 << 20)
            #expect(recorded.description.contains("\(3 << 20) bytes"))
        }
    }

    @Test("only the last 1,000 requests are kept, and nextRequest(path:) still hands out new ones", .timeLimit(.minutes(1)))
    func countCapped() async throws {
        try await withEmulator { emulator, _ in
            let connection = try RawHTTPConnection(port: emulator.port)
            let total = 1_050
            for batch in stride(from: 0, to: total, by: 50) {
                connection.write((batch..<batch + 50).map { "GET /nope/\($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined())
                let statuses = await offPool { (0..<50).compactMap { _ in connection.readResponse()?.status } }
                try #require(statuses == Array(repeating: 404, count: 50))
            }
            let kept = await emulator.recordedRequests()
            #expect(kept.count == 1_000)
            #expect(kept.first?.path == "/nope/50")
            #expect(kept.last?.path == "/nope/1049")
            connection.write("GET /after HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await emulator.nextRequest(path: "/after").path == "/after")
        }
    }
}
