import Foundation
import Testing
@testable import ChappieEmulator

@Suite("Emulator: input_image parts and the web_search tool")
struct ImageAndWebSearchTests {
    static let path = "/backend-api/codex/responses"
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x2A, count: 120)

    static func imageInput(_ url: String) -> [JSONValue] {
        [["type": "message", "role": "user", "content": [["type": "input_text", "text": "look"], ["type": "input_image", "image_url": .string(url)]]]]
    }

    @Test("data URLs are checked for their MIME type, base64, image data and size; http(s) URLs pass", arguments: [
        ("https://example.com/a.png", nil),
        ("data:image/png;base64," + png.base64EncodedString(), nil),
        ("data:image/webp;base64,UklGRiQAAABXRUJQVlA4IA==", nil),
        ("data:image/png;base64,%%%", "does not represent a valid image"),
        ("data:image/png;base64," + Data("text".utf8).base64EncodedString(), "does not represent a valid image"),
        ("data:text/plain;base64,aGk=", "unsupported MIME type 'text/plain'"),
        ("data:image/png," + png.base64EncodedString(), "not base64"),
        ("ftp://example.com/a.png", "without the 'data:' prefix"),
        ("data:image/png;base64," + (png + Data(count: 100)).base64EncodedString(), "larger than the maximum of 200 bytes"),
    ] as [(String, String?)])
    func imageChecks(url: String, expected: String?) {
        let rejection = ImageInput.rejection(in: Self.imageInput(url), maximumBytes: 200)
        if let expected {
            #expect(rejection?.contains(expected) == true, "\(url.prefix(40))")
            #expect(rejection?.contains("input[0].content[1]") == true || expected.contains("valid image"))
        } else {
            #expect(rejection == nil, "\(url.prefix(40))")
        }
    }

    @Test("a bad image is a 400 with the backend's text; a good one is answered and counted")
    func overHTTP() async throws {
        var configuration = ChappieEmulator.Configuration()
        configuration.maximumImageBytes = 1000
        try await withEmulator(configuration) { emulator, http in
            let tokens = await emulator.issueTokens()
            let bad: [String: Any] = ["type": "message", "role": "user", "content": [
                ["type": "input_text", "text": "look"], ["type": "input_image", "image_url": "data:image/png;base64,aGVsbG8="],
            ]]
            let refused = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(overrides: ["input": [bad]]), bearer: tokens.accessToken)
            #expect(refused.status == 400)
            #expect(refused.detail?.hasPrefix("The image data you provided does not represent a valid image") == true)
            let good: [String: Any] = ["type": "message", "role": "user", "content": [
                ["type": "input_text", "text": "look"], ["type": "input_image", "image_url": "data:image/png;base64," + Self.png.base64EncodedString()],
            ]]
            let answered = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(overrides: ["input": [good]]), bearer: tokens.accessToken)
            #expect(answered.status == 200)
            #expect(answered.text.contains("(I saw 1 image)"))
        }
    }

    @Test("with the web_search tool, a text reply is preceded by search and open_page calls and cites the page")
    func webSearch() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let body = EmulatorHTTPClient.responsesBody("weather in Paris", overrides: ["tools": [["type": "web_search"]]])
            let answer = try await http.postJSON(Self.path, body, bearer: tokens.accessToken)
            #expect(answer.status == 200)
            let events = answer.events
            let added = events.filter { $0.type == "response.output_item.added" }.compactMap { $0.data["item"] as? [String: Any] }
            #expect(added.map { $0["type"] as? String } == ["web_search_call", "web_search_call", "message"])
            let done = events.filter { $0.type == "response.output_item.done" }.compactMap { $0.data["item"] as? [String: Any] }
            #expect((done[0]["action"] as? [String: Any])?["query"] as? String == "weather in Paris")
            #expect((done[1]["action"] as? [String: Any])?["url"] as? String == ChappieEmulator.webSearchPageURL)
            #expect(events.contains { $0.type == "response.web_search_call.searching" })
            let part = try #require(((done[2]["content"] as? [[String: Any]])?.first))
            let text = try #require(part["text"] as? String)
            let annotation = try #require((part["annotations"] as? [[String: Any]])?.first)
            #expect(annotation["type"] as? String == "url_citation")
            let start = try #require(annotation["start_index"] as? Int), end = try #require(annotation["end_index"] as? Int)
            let scalars = Array(text.unicodeScalars)
            #expect(String(String.UnicodeScalarView(scalars[start..<end])) == "source: " + ChappieEmulator.webSearchPageTitle)
            #expect(events.contains { $0.type == "response.output_text.annotation.added" })
        }
    }
}
