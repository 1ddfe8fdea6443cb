import ChappieEmulator
import Foundation
import Testing

@Suite("Stream faults per request: cut, reset, drop, error event, deterministic or diverging replay (issues 4, 5)")
struct StreamFaultTests {
    static let path = "/backend-api/codex/responses"

    /// Posts a `/responses` call on a raw connection and reads its head and every chunk.
    func rawStream(_ emulator: ChappieEmulator, token: String) async throws -> (RawHTTPConnection, Int?, [Data]) {
        let connection = try RawHTTPConnection(port: emulator.port)
        try connection.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: token)
        let (status, chunks) = await offPool { () -> (Int?, [Data]) in
            let head = connection.readHead()
            var chunks = [Data]()
            while let chunk = connection.readChunk() { chunks.append(chunk) }
            return (head?.status, chunks)
        }
        return (connection, status, chunks)
    }

    @Test("A cut with close ends the body after N events without the last chunk or a reset")
    func cutClose() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.cut(.text("a long enough answer"), afterEvents: 3, ending: .close))
            let (connection, status, chunks) = try await rawStream(emulator, token: tokens.accessToken)
            #expect(status == 200)
            #expect(chunks.count == 3)
            #expect(!connection.wasReset)
        }
    }

    @Test("A cut with reset ends the body with a TCP reset")
    func cutReset() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.cut(.text("a long enough answer"), afterEvents: 2, ending: .reset))
            let (connection, status, chunks) = try await rawStream(emulator, token: tokens.accessToken)
            #expect(status == 200)
            #expect(chunks.count <= 2)
            #expect(connection.wasReset)
        }
    }

    @Test("A dropped connection sends no status line at all")
    func dropConnection() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.dropConnection)
            let (_, status, chunks) = try await rawStream(emulator, token: tokens.accessToken)
            #expect(status == nil)
            #expect(chunks.isEmpty)
        }
    }

    @Test("An error event inside an HTTP 200 stream has the nested error shape and ends the connection")
    func errorEventOverHTTP() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.errorEvent(status: 503, type: "service_unavailable_error", code: "server_is_overloaded", message: "Our servers are currently overloaded."))
            let (connection, status, chunks) = try await rawStream(emulator, token: tokens.accessToken)
            let events = SSEEvent.parse(chunks.reduce(Data(), +))
            #expect(status == 200)
            #expect(events.map(\.type) == ["response.created", "response.in_progress", "error"])
            let error = try #require(events.last?.data["error"] as? [String: Any])
            #expect(error["code"] as? String == "server_is_overloaded")
            #expect(error["type"] as? String == "service_unavailable_error")
            #expect(events.last?.data["sequence_number"] as? Int == 2)
            #expect(await offPool { connection.isClosedByServer() })
        }
    }

    @Test("A request retried after a cut default answer streams the same text; a queued other text diverges")
    func replayAfterCut() async throws {
        try await withEmulator(.init(deltaCharacters: 4)) { (emulator, http) async throws in
            let tokens = await emulator.issueTokens()
            func text(of chunks: [Data]) -> String {
                SSEEvent.parse(chunks.reduce(Data(), +)).filter { $0.type == "response.output_text.delta" }
                    .compactMap { $0.data["delta"] as? String }.joined()
            }
            // given a cut of the default answer, then the retry
            await emulator.enqueue(.cut(.text(ChappieEmulator.defaultReply(for: "ping")), afterEvents: 6, ending: .close))
            let first = try await rawStream(emulator, token: tokens.accessToken).2
            let retry = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            let retryText = retry.events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            // then the retry starts with what was already streamed
            #expect(!text(of: first).isEmpty)
            #expect(retryText.hasPrefix(text(of: first)))
            // given a cut followed by a different queued text
            await emulator.enqueue(.cut(.text("Hello world, again"), afterEvents: 6, ending: .close))
            await emulator.enqueue(.text("Hello there, friend"))
            let cut = text(of: try await rawStream(emulator, token: tokens.accessToken).2)
            let diverged = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken).events
                .filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            // then the replay differs from the streamed prefix
            #expect(cut == "Hello wo")
            #expect(!diverged.hasPrefix(cut))
        }
    }
}
