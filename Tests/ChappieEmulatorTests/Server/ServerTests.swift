import ChappieEmulator
import Foundation
import Testing

@Suite("HTTP/1.1 server behaviour")
struct ServerTests {
    @Test("Unknown routes are 404 Not Found and a wrong method is 405 with Allow")
    func routing() async throws {
        try await withEmulator { _, http in
            let missing = try await http.get("/backend-api/wham/tasks/list")
            #expect(missing.status == 404 && missing.detail == "Not Found")
            let wrongMethod = try await http.get("/oauth/token")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.headers["allow"] == "POST")
        }
    }

    @Test("Two requests share one keep-alive connection")
    func keepAlive() async throws {
        try await withEmulator { emulator, _ in
            let connection = try RawHTTPConnection(port: emulator.port)
            connection.write("GET /codex/device HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let first = await offPool { connection.readResponse() }
            connection.write("GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let second = await offPool { connection.readResponse() }
            #expect(first?.status == 200)
            #expect(second?.status == 404)
            #expect(first?.headers["connection"] == nil)
        }
    }

    @Test("Pipelined requests sent in one write are answered in order")
    func pipelining() async throws {
        try await withEmulator { emulator, _ in
            let connection = try RawHTTPConnection(port: emulator.port)
            connection.write("GET /codex/device HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /missing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let first = await offPool { connection.readResponse() }
            let second = await offPool { connection.readResponse() }
            #expect(first?.status == 200)
            #expect(second?.status == 404)
        }
    }

    @Test("An HTTP/1.0 request without keep-alive gets Connection: close and the socket closes")
    func http10() async throws {
        try await withEmulator { emulator, _ in
            let connection = try RawHTTPConnection(port: emulator.port)
            connection.write("GET /codex/device HTTP/1.0\r\n\r\n")
            let response = await offPool { connection.readResponse() }
            #expect(response?.status == 200)
            #expect(response?.headers["connection"] == "close")
            #expect(await offPool { connection.isClosedByServer() })
        }
    }

    @Test("A chunked request body is reassembled")
    func chunkedRequestBody() async throws {
        try await withEmulator { emulator, _ in
            let connection = try RawHTTPConnection(port: emulator.port)
            let json = #"{"client_id":"app_EMoamEEZ73f0CkXaXp7hrann"}"#
            let head = Array(json.utf8.prefix(10)), tail = Array(json.utf8.dropFirst(10))
            var request = Array("POST /api/accounts/deviceauth/usercode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            request += Array(String(head.count, radix: 16).utf8) + [13, 10] + head + [13, 10]
            request += Array(String(tail.count, radix: 16).utf8) + Array(";ext=1\r\n".utf8) + tail + [13, 10]
            request += Array("0\r\n\r\n".utf8)
            connection.write(request)
            let response = try #require(await offPool { connection.readResponse() })
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains("device_auth_id"))
        }
    }

    @Test("Expect: 100-continue gets an interim response before the body")
    func expectContinue() async throws {
        try await withEmulator { emulator, _ in
            let connection = try RawHTTPConnection(port: emulator.port)
            let json = #"{"client_id":"app_EMoamEEZ73f0CkXaXp7hrann"}"#
            connection.write("POST /api/accounts/deviceauth/usercode HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: \(json.utf8.count)\r\n\r\n")
            connection.write(json)
            #expect(await offPool { connection.readResponse() }?.status == 200)
        }
    }

    @Test("Malformed requests get 400 and the connection closes")
    func malformed() async throws {
        try await withEmulator { emulator, _ in
            for garbage in ["BROKEN\r\n\r\n", "GET / HTTP/1.1\r\nno colon here\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"] {
                let connection = try RawHTTPConnection(port: emulator.port)
                connection.write(garbage)
                #expect(await offPool { connection.readResponse() }?.status == 400)
                #expect(await offPool { connection.isClosedByServer() })
            }
        }
    }

    @Test("Oversized headers get 431 and an oversized body 413")
    func caps() async throws {
        try await withEmulator { emulator, _ in
            let headers: RawHTTPConnection? = try RawHTTPConnection(port: emulator.port)
            headers?.write("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n")
            #expect(await offPool { headers?.readResponse() }?.status == 431)
            let body = try RawHTTPConnection(port: emulator.port)
            body.write("POST /oauth/token HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n")
            #expect(await offPool { body.readResponse() }?.status == 413)
        }
    }

    @Test("A client leaving a stalled stream does not disturb the emulator, and shutdown ends the stall")
    func stallAndDisconnect() async throws {
        let emulator = try await ChappieEmulator.start()
        let http = EmulatorHTTPClient(emulator: emulator)
        let tokens = await emulator.issueTokens()
        await emulator.enqueue(.stall)
        await emulator.enqueue(.stall)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: EmulatorHTTPClient.responsesBody()), as: UTF8.self)
        let request = "POST /backend-api/codex/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(tokens.accessToken)\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)"
        // given a stalled stream the client abandons
        let leaving = try RawHTTPConnection(port: emulator.port)
        leaving.write(request)
        leaving.closeNow()
        // and a stalled stream that stays open
        let staying = try RawHTTPConnection(port: emulator.port)
        staying.write(request)
        // then the emulator still answers others
        #expect(try await http.get("/codex/device").status == 200)
        // and shutdown closes the stalled connection and returns
        await emulator.shutdown()
        #expect(await offPool { staying.readResponse() } == nil)
        #expect((try? RawHTTPConnection(port: emulator.port)) == nil)
    }

    @Test("Random garbage on many connections never takes the emulator down")
    func garbage() async throws {
        try await withEmulator { emulator, http in
            var generator = SystemRandomNumberGenerator()
            for round in 0..<64 {
                let connection = try RawHTTPConnection(port: emulator.port)
                let length = Int.random(in: 1...2048, using: &generator)
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if round % 2 == 0 { bytes = Array("POST /oauth/token HTTP/1.1\r\n".utf8) + bytes }
                connection.write(bytes)
                if round % 3 == 0 { connection.closeNow() }
            }
            #expect(try await http.get("/codex/device").status == 200)
        }
    }

    @Test("Forty concurrent streamed responses on one emulator all complete")
    func concurrentStreams() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let completed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let answer = try await http.postJSON(
                            "/backend-api/codex/responses", EmulatorHTTPClient.responsesBody("n\(index)"), bearer: tokens.accessToken)
                        let text = answer.events.filter { $0.type == "response.output_text.delta" }
                            .compactMap { $0.data["delta"] as? String }.joined()
                        return answer.events.last?.type == "response.completed" && text == ChappieEmulator.defaultReply(for: "n\(index)")
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(completed == 40)
        }
    }

    @Test("Many emulators run side by side on distinct ports")
    func parallelEmulators() async throws {
        let ports = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await withEmulator { (emulator, http) async throws -> Int in
                        #expect(try await http.get("/codex/device").status == 200)
                        return emulator.port
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(Set(ports).count == 6)
    }
}
