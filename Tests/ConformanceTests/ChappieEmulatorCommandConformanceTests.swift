import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("chappie emulator --replay-sse serves a recorded body byte for byte (issue 4)")
struct ChappieEmulatorCommandConformanceTests {
    /// Waits for the `listening` JSON line of the command (its first line) and returns its URL.
    func listeningURL(_ emulator: TestProcess) async throws -> String? {
        guard let line = try await emulator.nextLine() else { return nil }
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["url"] as? String
    }

    @Test(
        "Every /responses call gets the file's bytes, cut at the given offsets",
        .enabled(if: ClientAvailability.chappieBinary != nil, "the chappie binary is not built")
    )
    func replayFromFile() async throws {
        // given a recorded body with odd framing
        let chappie = try #require(ClientAvailability.chappieBinary)
        let body = Data(": hi\r\n\r\ndata:{\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\r\n\r\ndata: [DONE]".utf8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-replay-\(UUID().uuidString).sse")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try TestProcess(chappie, ["emulator", "--port", "0", "--json", "--replay-sse", file.path, "--chunk-offsets", "3,20"],
                                      error: .discard, timeLimit: .seconds(120))
        defer { process.interrupt() }  // and the process is killed when the test lets go of it
        let url = try #require(try await listeningURL(process))
        // when a signed-in client makes two calls
        let token = try await deviceToken(url)
        var bodies = [Data]()
        for _ in 0..<2 { bodies.append(try await post(url, token: token)) }
        // then
        #expect(bodies == [body, body])
    }

    @Test(
        "Chunk offsets without a file, offsets outside the file, and an unreadable file are usage errors",
        .enabled(if: ClientAvailability.chappieBinary != nil, "the chappie binary is not built"),
        arguments: [["--chunk-offsets", "5"], ["--replay-sse", "FILE", "--chunk-offsets", "5,3"], ["--replay-sse", "FILE", "--chunk-offsets", "99"], ["--replay-sse", "/nonexistent/chappie.sse"]]
    )
    func usageErrors(_ options: [String]) async throws {
        let chappie = try #require(ClientAvailability.chappieBinary)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-replay-\(UUID().uuidString).sse")
        try Data("data: {}\n\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let arguments = ["emulator", "--port", "0"] + options.map { $0 == "FILE" ? file.path : $0 }
        let result = try await TestProcess.run(chappie, arguments, timeLimit: .seconds(60))
        #expect(!result.timedOut)
        #expect(result.status == 2, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("--chunk-offsets") || result.stderr.contains("--replay-sse"))
    }

    /// Signs in through the device flow of the running emulator (it approves after 2 polls).
    func deviceToken(_ url: String) async throws -> String {
        let clientID = "app_EMoamEEZ73f0CkXaXp7hrann"
        let start = try await json(url + "/api/accounts/deviceauth/usercode", ["client_id": clientID])
        let id = try #require(start["device_auth_id"] as? String), code = try #require(start["user_code"] as? String)
        var grant = [String: Any]()
        for _ in 0..<10 where grant["authorization_code"] == nil {
            grant = try await json(url + "/api/accounts/deviceauth/token", ["device_auth_id": id, "user_code": code])
        }
        let form = [
            "grant_type=authorization_code", "client_id=\(clientID)",
            "code=\(try #require(grant["authorization_code"] as? String))",
            "code_verifier=\(try #require(grant["code_verifier"] as? String))",
            "redirect_uri=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)%2Fdeviceauth%2Fcallback",
        ].joined(separator: "&")
        var request = URLRequest(url: URL(string: url + "/oauth/token")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(form.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let tokens = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(tokens["access_token"] as? String)
    }

    func json(_ url: String, _ object: [String: Any]) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: object)
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func post(_ url: String, token: String) async throws -> Data {
        var request = URLRequest(url: URL(string: url + "/backend-api/codex/responses")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(#"{"model":"gpt-5.5","instructions":"x","input":[],"store":false,"stream":true}"#.utf8)
        return try await URLSession.shared.data(for: request).0
    }
}
