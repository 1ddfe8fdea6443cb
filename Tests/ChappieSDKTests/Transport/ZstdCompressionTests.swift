#if os(Linux)
@testable import ChappieEmulator
@testable import ChappieCore
@testable import ChappieTransport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(
    "Request compression with the system libzstd (PROTOCOL §4.2)",
    .enabled(if: ZstdCompression.isAvailable || ProcessInfo.processInfo.environment["CI"] != nil, "libzstd1 is not installed (scripts/test installs it)")
)
struct ZstdCompressionTests {
    /// A Responses request body after 12 turns of 2 KB prompts and their answers.
    static func transcriptBody() throws -> Data {
        var input: [[String: Any]] = []
        for turn in 0..<12 {
            let prompt = (0..<40).map { "Line \($0) of prompt \(turn): please summarise the meeting notes about the quarterly plan." }.joined(separator: "\n")
            input.append(["type": "message", "role": "user", "content": [["type": "input_text", "text": String(prompt.prefix(2048))]]])
            input.append(["type": "message", "role": "assistant", "content": [["type": "output_text", "text": "Summary \(turn): the plan holds; ship on Friday."]]])
        }
        let body: [String: Any] = ["model": "gpt-5.5", "instructions": "You are a test.", "input": input, "store": false, "stream": true]
        return try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
    }

    @Test("A compressed body round-trips through the emulator's zstd decoder and is much smaller")
    func roundTrip() throws {
        // given
        #expect(ZstdCompression.isAvailable)
        let body = try Self.transcriptBody()
        // when
        let compressed = try #require(ZstdCompression.compress(body))
        // then
        #expect(compressed.count * 4 < body.count, "\(compressed.count) of \(body.count) bytes")
        #expect(try ZstdDecoder.decode(compressed, maximumBytes: 1 << 24).get() == body)
        #expect(ZstdCompression.contentEncoding == HTTPField(name: "Content-Encoding", value: "zstd"))
    }

    @Test("The emulator answers a real zstd-compressed POST /responses")
    func compressedRequest() async throws {
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueTokens()
            let body = try Self.transcriptBody()
            var request = URLRequest(url: emulator.backendBaseURL.appendingPathComponent("codex/responses"))
            request.httpMethod = "POST"
            request.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(ZstdCompression.contentEncoding.value, forHTTPHeaderField: ZstdCompression.contentEncoding.name)
            let compressed = try #require(ZstdCompression.compress(body))
            request.httpBody = compressed
            // when
            let (data, response) = try await URLSession.shared.data(for: request)
            // then
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
            #expect(String(decoding: data, as: UTF8.self).contains("response.completed"))
            let recorded = try #require(await emulator.recordedRequests().last { $0.path == "/backend-api/codex/responses" })
            #expect(recorded.body == compressed)
        }
    }

    @Test("Without the library the body stays uncompressed (nil)")
    func missingLibrary() throws {
        let missing = Result { () throws(SystemLibrary.LoadError) in try ZstdLibrary.load("libzstd-chappie-missing.so.1") }
        #expect(ZstdCompression.compress(try Self.transcriptBody(), level: 3, library: missing) == nil)
        #expect(ZstdCompression.compress(try Self.transcriptBody(), level: 3, library: ZstdLibrary.shared) != nil)
    }
}
#endif
