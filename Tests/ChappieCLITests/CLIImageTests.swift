import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieTestSupport
import Foundation
import Testing

@Suite("chappie ask --image and --web-search")
struct CLIImageTests {
    @Test("--image sends the file as an input_image data URL typed by its extension", .timeLimit(.minutes(1)))
    func image() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let file = FileManager.default.temporaryDirectory.appending(path: "chappie-cli-\(UUID().uuidString).png")
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 1, count: 40)
            try png.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }

            let ask = try await CLIProcess.run(["ask", "what is it?", "--image", file.path] + CLIEmulator.endpointArguments(emulator),
                                               environment: environment)

            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            #expect(ask.stdout.contains("(I saw 1 image)"))
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            let user = try #require(body["input"]?.arrayValue?.last { $0["role"] == "user" })
            #expect(user["content"]?.arrayValue?.last?["image_url"]?.stringValue == "data:image/png;base64," + png.base64EncodedString())
        }
    }

    @Test("a file that is not what its extension says is refused with a hint, nothing sent; --image elsewhere is a usage error",
          .timeLimit(.minutes(1)))
    func refusals() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let file = FileManager.default.temporaryDirectory.appending(path: "chappie-cli-\(UUID().uuidString).jpg")
            try Data("not a picture".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }

            let ask = try await CLIProcess.run(["ask", "what is it?", "--image", file.path] + CLIEmulator.endpointArguments(emulator),
                                               environment: environment)
            #expect(ask.status == 1)
            #expect(ask.stderr.contains("not a PNG, JPEG, GIF or WebP image"))
            #expect(ask.stderr.contains("Convert the image"))
            #expect(await emulator.recordedRequests().filter { $0.path == CLIEmulator.responsesPath }.isEmpty)

            let text = try await CLIProcess.run(["ask", "hi", "--image", "/tmp/notes.txt"], environment: environment)
            #expect(text.status == 2 && text.stderr.contains("not a .png, .jpg, .gif or .webp file"))
            let empty = try await CLIProcess.run(["ask", "hi", "--image", ""], environment: environment)
            #expect(empty.status == 2 && empty.stderr.contains("--image needs a file path"))
            let signed = try await CLIProcess.run(["ask", "hi", "--image", "https://x.example/a.png?sig=SECRET123456"], environment: environment)
            #expect(signed.status == 2 && !signed.stderr.contains("SECRET123456"), "\(signed.stderr)")
            #expect(await emulator.recordedRequests().filter { $0.path == CLIEmulator.responsesPath }.isEmpty)
            let models = try await CLIProcess.run(["models", "--web-search"], environment: environment)
            #expect(models.status == 2 && models.stderr.contains("--web-search applies only to `chappie ask`"))
        }
    }

    @Test("--web-search offers the web_search tool; the reply cites the emulator's page", .timeLimit(.minutes(1)))
    func webSearch() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let ask = try await CLIProcess.run(["ask", "news?", "--web-search", "--model", "gpt-5.6-sol"] + CLIEmulator.endpointArguments(emulator),
                                               environment: environment)
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            #expect(ask.stdout.contains("(source: \(ChappieEmulator.webSearchPageTitle))"))
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(body["tools"]?.arrayValue?.contains(["type": "web_search"]) == true)
            // the steps and the source are shown
            #expect(ask.stdout.contains("[web search] news?"), "\(ask.stdout)")
            #expect(ask.stdout.contains("[open] \(ChappieEmulator.webSearchPageURL)"))
            #expect(ask.stdout.contains("[source] \(ChappieEmulator.webSearchPageTitle) <\(ChappieEmulator.webSearchPageURL)>"))
            // and as JSON lines: web_search events, and the citations in completed
            let json = try await CLIProcess.run(["ask", "news?", "--web-search", "--model", "gpt-5.6-sol", "--json"]
                                                + CLIEmulator.endpointArguments(emulator), environment: environment)
            let lines = json.stdout.split(separator: "\n").compactMap { try? ChappieJSONValue(jsonData: Data($0.utf8)) }
            #expect(lines.contains { $0["event"] == "web_search" && $0["action"] == "search" && $0["detail"] == "news?" })
            let completed = try #require(lines.last { $0["event"] == "completed" })
            #expect(completed["citations"]?.arrayValue?.first?["url"]?.stringValue == ChappieEmulator.webSearchPageURL)
        }
    }

    @Test("threads show lists a message's images by type and size (the thread keeps no bytes), also as JSON", .timeLimit(.minutes(1)))
    func threadsShow() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let id = UUID()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 1, count: 4_992)
        let message = ChappieInputMessage.user("look", attachments: [.image(data: png, mimeType: "image/png")])
        let context = ChappieClientContext(sessionID: "s", threadID: id.uuidString.lowercased(), model: "gpt-5.5",
                                           messages: [message, .assistant("a cat")], compactedSummary: nil, createdAt: Date(), updatedAt: Date())
        _ = try await CLIThreadStore.store(for: environment).save(ChappieThread(id: id, title: "photo", context: context))

        let shown = try await CLIProcess.run(["threads", "show", id.uuidString], environment: environment)
        #expect(shown.status == 0, "stderr: \(shown.stderr)")
        #expect(shown.stdout.contains("you: look\n[image: image/png, 5 KB]\nassistant: a cat\n"))
        let json = try await CLIProcess.run(["threads", "show", id.uuidString, "--json"], environment: environment).jsonLines()
        let attachment = try #require(json.first?["messages"]?.arrayValue?.first?["attachments"]?.arrayValue?.first)
        #expect(attachment == ["mime_type": "image/png", "byte_count": 5000, "url": nil])
    }

    @Test("threads show notes a turn whose unreadable items were dropped, and names an image URL without its query", .timeLimit(.minutes(1)))
    func threadsShowRepairAndURL() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let id = UUID()
        let url = try #require(URL(string: "https://img.example/cat.png?X-Amz-Signature=SECRET123456"))
        let message = ChappieInputMessage.user("look", attachments: [.imageURL(url)])
        let context = ChappieClientContext(sessionID: "s", threadID: id.uuidString.lowercased(), model: "gpt-5.5",
                                           messages: [message, .assistant("a cat")], compactedSummary: nil, createdAt: Date(), updatedAt: Date())
        let turn = ChappieThreadTurn(input: [message], startedAt: Date(), endedAt: Date(), status: .completed, outputText: "a cat",
                                     contextRepair: ChappieContextRepair(droppedReasoningItems: 2, droppedCompactionItems: 1))
        _ = try await CLIThreadStore.store(for: environment).save(ChappieThread(id: id, title: "photo", context: context, turns: [turn]))

        let shown = try await CLIProcess.run(["threads", "show", id.uuidString], environment: environment)
        #expect(shown.status == 0, "stderr: \(shown.stderr)")
        #expect(shown.stdout.contains("[note] The server could no longer read 1 compaction item and 2 reasoning items"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("SECRET123456"))
        let json = try await CLIProcess.run(["threads", "show", id.uuidString, "--json"], environment: environment)
        #expect(!json.stdout.contains("SECRET123456"))
        let entry = try #require(json.jsonLines().first?["turns"]?.arrayValue?.first)
        #expect(entry["context_repair"] == ["dropped_reasoning_items": 2, "dropped_compaction_items": 1])
    }
}
