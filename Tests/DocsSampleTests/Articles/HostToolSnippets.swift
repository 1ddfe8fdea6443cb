import ChappieSDK
import ChappieSDKTesting
import Testing

// The code of the DocC article "Host tools and approvals" (Sources/ChappieSDK/ChappieSDK.docc),
// compiled and run here; CatalogSnippetTests checks that each of the article's blocks appears here.

/// The app's notes, as the article's tool assumes them.
actor NotesStore {
    static let shared = NotesStore()
    private(set) var titles = ["Groceries", "Trip"]
    func delete(title: String) throws { titles.removeAll { $0 == title } }
}

/// The app's confirmation dialog, as the article assumes one: here, the test's answer.
@TaskLocal var userAnswersYes = true
func askUser(_ question: String) async -> Bool {
    DocsEnvironment.current?.appLog.append(question)
    return userAnswersYes
}

func hostToolsClient() -> ChappieClient {
    let deleteNote = ChappieHostTool(
        name: "delete_note",
        description: "Deletes one of the user's notes by its title.",
        inputSchema: ["type": "object", "properties": ["title": ["type": "string"]], "required": ["title"]],
        policy: .ask
    ) { call in
        guard let title = call.argumentsJSON?["title"]?.stringValue else {
            return ChappieToolResult(output: #"{"error":"missing title"}"#)
        }
        try await NotesStore.shared.delete(title: title)
        return ChappieToolResult(output: #"{"deleted":true}"#)
    }
    let client = Chappie.client(tools: [deleteNote], toolApprovalHandler: { request in
        await askUser("Delete the note \(request.call.argumentsJSON?["title"]?.stringValue ?? "?")?")
            ? .approved() : .denied(reason: "The user kept the note.")
    })
    return client  // +test
}

func hostToolsEvents(client: ChappieClient) async throws {
    for try await event in client.stream("Delete my Trip note") {
        switch event {
        case .toolCallRequested(let request): print("calling", request.name, request.arguments)
        case .approvalRequested(let request): print("asking about", request.name)
        case .toolCallCompleted(let result): print(result.call.name, result.status, result.output)
        case .textDelta(let text): print(text, terminator: "")
        default: break
        }
    }
}

@Suite("DocC articles: Host tools and approvals")
struct HostToolSnippetTests {
    @Test("an approved call runs the handler; the events tell the story in order")
    func approved() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptToolCall("delete_note", arguments: ["title": "Trip"])
            await docs.emulator.scriptReplies(.text("Deleted."))
            try await hostToolsEvents(client: hostToolsClient())
            #expect(docs.output.text == """
                calling delete_note {"title":"Trip"}
                asking about delete_note
                delete_note completed {"deleted":true}
                Deleted.
                """)
            #expect(docs.appLog.text == "Delete the note Trip?")
        }
    }

    @Test("a denied call never runs; the model is told why")
    func denied() async throws {
        try await $userAnswersYes.withValue(false) {
            try await DocsEnvironment.run { docs in
                await docs.emulator.scriptToolCall("delete_note", arguments: ["title": "Groceries"])
                await docs.emulator.scriptReplies(.text("Kept."))
                try await hostToolsEvents(client: hostToolsClient())
                #expect(docs.output.text.contains("delete_note denied"))
                #expect(docs.output.text.contains("The user kept the note."))
                #expect(await NotesStore.shared.titles.contains("Groceries"))
            }
        }
    }
}
