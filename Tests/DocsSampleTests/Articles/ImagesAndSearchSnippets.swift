import ChappieEmulator
import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// The code of the DocC articles "Images" (ImageInput.md) and "Web search" (Sources/ChappieSDK/ChappieSDK.docc),
// compiled and run here; CatalogSnippetTests checks that each of the articles' blocks appears here.

func describePhoto(client: ChappieClient, photo: Data) async throws -> String {
    let message = ChappieInputMessage.user("What is in this photo?", attachments: [.image(data: photo, mimeType: "image/jpeg")])
    return try await client.send(message)
}

func describePicture(client: ChappieClient, at address: URL) async throws -> String {
    try await client.send(.user("What is in this picture?", attachments: [.imageURL(address)]))
}

func describePhotoOrExplain(client: ChappieClient, photo: Data) async -> String {
    do {
        return try await describePhoto(client: client, photo: photo)
    } catch let error as ChappieInputError {
        return "\(error.localizedDescription) \(error.recoverySuggestion ?? "")"
    } catch {
        return "The request failed: \(error.localizedDescription)"
    }
}

func searchingClient() -> ChappieClient {
    var configuration = ChappieConfiguration()
    configuration.webSearch = true
    configuration.model = "gpt-5.6-sol"  // +test
    return Chappie.client(configuration: configuration)
}

func answerWithSources(client: ChappieClient) async throws -> [ChappieURLCitation] {
    var options = ChappieMessageOptions()
    options.webSearch = true
    for try await event in client.stream(.user("What changed in the latest Swift release?", options: options)) {
        switch event {
        case .webSearch(let step) where !step.isFinished:
            if case .search(let query?) = step.action { print("Searching for", query) }
            if case .openPage(let url?) = step.action { print("Reading", url) }
        case .completed(let response):
            for citation in response.citations {
                let span = citation.range(in: response.outputText).map { String(response.outputText[$0]) } ?? ""
                print("\(citation.title) <\(citation.url)>: \(span)")
            }
            return response.citations
        default:
            break
        }
    }
    return []
}

@Suite("DocC articles: Images and web search")
struct ImagesAndSearchSnippetTests {
    /// Bytes that start like a JPEG image.
    static let photo = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 7, count: 60)

    @Test("describePhoto sends the photo, which the emulator sees")
    func photo() async throws {
        try await DocsEnvironment.run { _ in
            let reply = try await describePhoto(client: Chappie.client(), photo: Self.photo)
            #expect(reply.hasSuffix("(I saw 1 image)"))
        }
    }

    @Test("describePicture sends the image's address as an input_image URL")
    func picture() async throws {
        try await DocsEnvironment.run { docs in
            let address = try #require(URL(string: "https://example.com/cat.png"))
            let reply = try await describePicture(client: Chappie.client(), at: address)
            #expect(reply.hasSuffix("(I saw 1 image)"))
            let body = try #require(await docs.responsesRequests().last)
            let parts = (body["input"]?.arrayValue ?? []).flatMap { $0["content"]?.arrayValue ?? [] }
            #expect(parts.contains(["type": "input_image", "image_url": .string(address.absoluteString)]))
        }
    }

    @Test("a PNG passed as a JPEG is explained with a recovery suggestion, and nothing is sent")
    func explained() async throws {
        try await DocsEnvironment.run { docs in
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])
            let text = await describePhotoOrExplain(client: Chappie.client(), photo: png)
            #expect(text == "The image is declared as image/jpeg but its data is image/png. Pass the MIME type that matches the data.")
            #expect(await docs.responsesRequests().isEmpty)
        }
    }

    @Test("the searching client prints its steps and the cited source")
    func search() async throws {
        try await DocsEnvironment.run { docs in
            let citations = try await answerWithSources(client: searchingClient())
            #expect(citations.map(\.url) == [ChappieEmulator.webSearchPageURL])
            #expect(docs.output.text.contains("Searching for What changed in the latest Swift release?\n"))
            #expect(docs.output.text.contains("Reading \(ChappieEmulator.webSearchPageURL)\n"))
            #expect(docs.output.text.contains("Example Domain <https://example.com/>: source: Example Domain\n"))
        }
    }
}
