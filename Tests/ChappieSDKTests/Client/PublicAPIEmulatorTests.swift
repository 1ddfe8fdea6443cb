import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

/// Runs `body` with a client signed in to a fresh emulator with Sign in with ChatGPT (its tokens
/// issued directly, as after an approved consent): every request goes to the emulator's `/v1`.
private func withPublicAPIClient<Result: Sendable>(
    isolation: isolated (any Actor)? = #isolation, planUsage: Bool = true, tools: [ChappieHostTool] = [],
    _ body: (ChappieEmulator, ChappieClient) async throws -> Result
) async throws -> Result {
    try await ChappieTestEmulator.with(.init(), configure: { $0.streamingTransportPolicy = .default }) { emulator, configuration in
        let tokens = await emulator.issueSignInWithChatGPTTokens(planUsage: planUsage)
        let credential = ChappieCredential(idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                           expiresIn: TimeInterval(tokens.expiresIn), obtainedAt: Date(), route: .signInWithChatGPT,
                                           clientID: tokens.clientID, grantedScopes: tokens.scope.split(separator: " ").map(String.init))
        try await configuration.credentialStore.saveCredential(credential, for: configuration.credentialKey)
        let client = ChappieClient(configuration: configuration, tools: tools, timeSource: ChappieVirtualTime().timeSource)
        return try await body(emulator, client)
    }
}

private func publicRequests(_ emulator: ChappieEmulator) async -> [ChappieEmulator.RecordedRequest] {
    await emulator.recordedRequests().filter { $0.path.hasPrefix("/v1/") }
}

private func backendRequests(_ emulator: ChappieEmulator) async -> [ChappieEmulator.RecordedRequest] {
    await emulator.recordedRequests().filter { $0.path.hasPrefix("/backend-api/") }
}

@Suite("Public API against the emulator")
struct PublicAPIEmulatorTests {
    @Test("send, stream, a host tool round trip, models and compaction work on the emulator's /v1, nothing reaches /backend-api")
    func everyCall() async throws {
        let tool = ChappieHostTool(name: "lookup_stock", description: "Stock for a SKU",
                                   inputSchema: ["type": "object", "properties": ["sku": ["type": "string"]]]) { _ in
            ChappieToolResult(output: #"{"in_stock":7}"#)
        }
        try await withPublicAPIClient(tools: [tool]) { emulator, client in
            #expect(try await client.send("hello there").contains("hello there"))
            var text = ""
            for try await event in client.stream(#"use tool lookup_stock {"sku":"A1"}"#) {
                if case .textDelta(let delta) = event { text += delta }
                if case .completed(let response) = event { #expect(response.transport == .httpSSE) }
            }
            #expect(text.contains("in_stock"))
            let models = try await client.models()
            #expect(!models.isEmpty && models.allSatisfy { $0.visibility == "list" })
            #expect(try await client.bestAvailableModel() != nil)
            let compacted = try await client.compactContext()
            #expect(compacted.compactedSummary != nil)
            #expect(await backendRequests(emulator).isEmpty)
            #expect(await publicRequests(emulator).count >= 5)
        }
    }

    @Test("the emulator's mid-stream usage limit after deltas: partial kept, usageLimitReached without a reset time")
    func usageLimitMidStream() async throws {
        try await withPublicAPIClient { emulator, client in
            await emulator.enqueuePlanUsageFault(.failedMidStream(code: "subscription_sharing_usage_limit_exceeded", afterDeltas: 2))
            let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("a long answer please") }
            guard case .usageLimitReached(let limit)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(limit.resetsAt == nil && limit.manageUsageURL != nil)
            #expect(await client.context().messages.last?.isPartial == true)
        }
    }

    @Test("the emulator's faults: [DONE] early, no Content-Type, another Content-Type, empty completed output", arguments: [
        ChappieEmulator.PlanUsageFault.doneBeforeCompleted, .withoutContentType, .contentType("application/json"), .emptyCompletedOutput,
    ])
    func streamFaults(fault: ChappieEmulator.PlanUsageFault) async throws {
        try await withPublicAPIClient { emulator, client in
            await emulator.enqueuePlanUsageFault(fault)
            let outcome: Result<String, any Error>
            do { outcome = .success(try await client.send("echo me")) } catch { outcome = .failure(error) }
            switch (fault, outcome) {
            case (.doneBeforeCompleted, .failure(let error)):
                #expect(error as? ChappieClientError == .streamEndedBeforeCompletion)
            case (.contentType, .failure(let error)):
                guard case .invalidResponse? = error as? ChappieClientError else { Issue.record("got \(error)"); return }
            case (.withoutContentType, .success(let text)), (.emptyCompletedOutput, .success(let text)):
                #expect(text.contains("echo me"))
            default:
                Issue.record("\(fault): \(outcome)")
            }
        }
    }

    @Test("each plan error the emulator serves reaches the app typed, with its request id", arguments: [
        (ChappieEmulator.PlanUsageFault.userNotEligible, ChappieAPIError.Code.userNotEligible),
        (.routeNotSupported, .routeNotSupported), (.scopeNotAuthorized, .scopeNotAuthorized),
        (.invalidAuthorizationContext, .invalidAuthorizationContext), (.modelNotFound, .modelNotFound),
        (.unsupportedCapability(param: "temperature"), .unsupportedCapability), (.admission(status: 403), .admissionRefused),
        (.admission(status: 403, nestedCode: "subscription_sharing_user_not_eligible"), .userNotEligible),
    ])
    func planErrors(fault: ChappieEmulator.PlanUsageFault, code: ChappieAPIError.Code) async throws {
        try await withPublicAPIClient { emulator, client in
            await emulator.enqueuePlanUsageFault(fault)
            let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("hi") }
            guard case .publicAPI(let apiError)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(apiError.code == code)
            #expect(await publicRequests(emulator).filter { $0.path == "/v1/responses" }.count == 1)
        }
    }

    @Test("usage unavailable once is retried and the reply arrives; credentials are kept")
    func usageUnavailableRetried() async throws {
        try await withPublicAPIClient { emulator, client in
            await emulator.enqueuePlanUsageFault(.usageUnavailable)
            let reply = try await client.send("again")
            #expect(reply.contains("again"))
            #expect(await publicRequests(emulator).filter { $0.path == "/v1/responses" }.count == 2)
        }
    }

    @Test("a grant without plan usage is refused before anything reaches the emulator")
    func noPlanUsage() async throws {
        try await withPublicAPIClient(planUsage: false) { emulator, client in
            let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("hi") }
            #expect(error == .publicAPI(ChappieAPIError(code: .planUsageNotGranted)))
            #expect(await publicRequests(emulator).isEmpty)
        }
    }
}

@Suite("Public API: images and web search against the emulator")
struct PublicAPIImageAndSearchTests {
    @Test("an inline image and the web_search tool pass the route's allowlist; the emulator saw the image and cited its page")
    func imageAndSearch() async throws {
        try await withPublicAPIClient { emulator, client in
            await client.selectModel("gpt-5.6-sol")
            var options = ChappieMessageOptions()
            options.webSearch = true
            let image = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])
            let response = try await client.response(ChappieResponseRequest(
                messages: [.user("What is this?", attachments: [.image(data: image, mimeType: "image/png")], options: options)],
                options: options))
            #expect(response.outputText.contains("(I saw 1 image)"))
            #expect(response.citations.first?.url == ChappieEmulator.webSearchPageURL)
            let request = try #require(await publicRequests(emulator).last { $0.path == "/v1/responses" })
            let body = try ChappieJSONValue(jsonData: request.body)
            #expect(body["tools"]?.arrayValue == [["type": "web_search"]])
            let user = try #require(body["input"]?.arrayValue?.last { $0["role"] == "user" })
            #expect(user["content"]?.arrayValue?.last?["image_url"]?.stringValue == "data:image/png;base64," + image.base64EncodedString())
        }
    }

    @Test("typed output on the public API sends text.format; a server that refuses it gets the schema as an instruction, once refused always")
    func structuredOutputDegrades() async throws {
        try await withPublicAPIClient { emulator, client in
            // when: the route accepts text.format (the emulator does), the reply follows the schema
            let first = try await client.send("a pudding", generating: Recipe.self)
            #expect(first.title == "a pudding")
            let accepted = try ChappieJSONValue(jsonData: try #require(await publicRequests(emulator).last { $0.path == "/v1/responses" }).body)
            #expect(accepted["text"]?["format"]?["type"] == "json_schema")

            // when: the server refuses it
            await emulator.enqueuePlanUsageFault(.error(status: 400, code: "subscription_sharing_unsupported_capability", param: "text.format"))
            let reply = #"{"title":"a cake","course":"dessert","servings":4,"rating":4.5,"vegetarian":true,"ingredients":["flour"],"steps":[{"text":"bake","minutes":30}],"wine":null,"garnish":null}"#
            await emulator.enqueue(.text(reply))
            let before = await publicRequests(emulator).filter { $0.path == "/v1/responses" }.count
            let second = try await client.send("a cake", generating: Recipe.self)

            // then: sent again at once, without text and with the schema in a developer message
            #expect(second.title == "a cake")
            let requests = await publicRequests(emulator).filter { $0.path == "/v1/responses" }.dropFirst(before)
            #expect(requests.count == 2)
            let retried = try ChappieJSONValue(jsonData: try #require(requests.last).body)
            #expect(retried["text"] == nil)
            let instruction = try #require(retried["input"]?.arrayValue?.last)
            #expect(instruction["role"] == "developer")
            let text = try #require(instruction["content"]?.arrayValue?.first?["text"]?.stringValue)
            #expect(text.contains(Recipe.generationSchema.jsonSchema.jsonString))

            // and later typed turns go that way at once: one request
            await emulator.enqueue(.text(reply))
            _ = try await client.send("another cake", generating: Recipe.self)
            #expect(await publicRequests(emulator).filter { $0.path == "/v1/responses" }.count == before + 3)
        }
    }
}
