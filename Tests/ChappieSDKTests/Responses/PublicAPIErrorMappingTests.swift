import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

/// One documented failure and what the caller must get.
struct PublicAPIFailureCase: Sendable, CustomTestStringConvertible {
    var status: Int
    var body: String
    /// The code of the ``ChappieAPIError`` the caller gets (nil: a usage limit).
    var code: ChappieAPIError.Code?
    /// Requests to `/v1/responses` before the caller gets the error (1 = never retried).
    var requests: Int
    var param: String? = nil
    var testDescription: String { "\(status) \(code?.rawValue ?? "usage limit")" }
}

private let secret = "SECRET-INPUT-ECHO"

private func error(code: String, param: String? = nil) -> String {
    #"{"error":{"code":"\#(code)","message":"\#(secret)","type":"invalid_request_error"\#(param.map { #","param":"\#($0)""# } ?? "")}}"#
}

private let cases: [PublicAPIFailureCase] = [
    .init(status: 403, body: error(code: "subscription_sharing_user_not_eligible"), code: .userNotEligible, requests: 1),
    .init(status: 429, body: error(code: "subscription_sharing_usage_limit_exceeded"), code: nil, requests: 1),
    .init(status: 503, body: error(code: "subscription_sharing_usage_unavailable"), code: .usageUnavailable, requests: 3),
    .init(status: 503, body: error(code: "subscription_sharing_user_unavailable"), code: .userUnavailable, requests: 3),
    .init(status: 400, body: error(code: "subscription_sharing_unsupported_capability", param: "tools"), code: .unsupportedCapability,
          requests: 1, param: "tools"),
    .init(status: 403, body: error(code: "subscription_sharing_route_not_supported"), code: .routeNotSupported, requests: 1),
    .init(status: 401, body: error(code: "subscription_sharing_invalid_user"), code: .invalidUser, requests: 2),
    .init(status: 403, body: error(code: "chatpass_v2_scope_not_authorized"), code: .scopeNotAuthorized, requests: 1),
    .init(status: 403, body: error(code: "chatpass_v2_invalid_authorization_context"), code: .invalidAuthorizationContext, requests: 1),
    .init(status: 403, body: error(code: "subscription_sharing_v2_user_not_eligible"), code: .userNotEligible, requests: 1),
    .init(status: 403, body: error(code: "subscription_sharing_v2_route_not_supported"), code: .routeNotSupported, requests: 1),
    .init(status: 401, body: error(code: "subscription_sharing_v2_invalid_user"), code: .invalidUser, requests: 2),
    .init(status: 503, body: error(code: "subscription_sharing_v2_user_unavailable"), code: .userUnavailable, requests: 3),
    .init(status: 403, body: error(code: "subscription_sharing_v2_client_not_enabled"), code: .clientNotEnabled, requests: 1),
    .init(status: 401, body: #"{"detail":"\#(secret)"}"#, code: .admissionRefused, requests: 2),
    .init(status: 403, body: #"{"detail":"Not available in your \#(secret) region"}"#, code: .admissionRefused, requests: 1),
    .init(status: 503, body: #"{"detail":"\#(secret)"}"#, code: .admissionRefused, requests: 3),
    .init(status: 403, body: #"{"detail":{"code":"subscription_sharing_user_not_eligible","message":"\#(secret)"}}"#, code: .userNotEligible,
          requests: 1),
    .init(status: 404, body: error(code: "model_not_found", param: "model"), code: .modelNotFound, requests: 1, param: "model"),
    .init(status: 429, body: error(code: "rate_limit_exceeded"), code: .rateLimited, requests: 3),
    .init(status: 500, body: "<html>\(secret)</html>", code: .serverError, requests: 3),
]

@Suite("Public API errors and their recovery")
struct PublicAPIErrorMappingTests {
    @Test("each documented error gets its code, its action (retried or not), the request id, and never the server's message", arguments: cases)
    func documentedErrors(failure: PublicAPIFailureCase) async throws {
        // given a server that answers every Responses request with the failure, and renews tokens
        let renewed = signInWithChatGPTCredential()
        let transport = ScriptedTransport { request, _ in
            if let discovery = publicAPIDiscoveryReply(request) { return discovery }
            if request.url.path.hasSuffix("/oauth/token") {
                return .json(200, #"{"access_token":"\#(renewed.accessTokenForTests)","refresh_token":"rt_2","id_token":"\#(renewed.idTokenForTests)","expires_in":3600}"#)
            }
            return errorReply(failure.status, failure.body, requestID: "req_\(failure.status)")
        }
        let log = ChappieInMemoryLogSink()
        let (client, configuration) = try await publicAPIClient(transport) { $0.logSink = log }
        // when
        let thrown = await #expect(throws: ChappieClientError.self) { _ = try await client.send("Hi") }
        // then
        let error = try #require(thrown)
        switch (error, failure.code) {
        case (.usageLimitReached(let limit), nil):
            #expect(limit.resetsAt == nil)
            #expect(limit.manageUsageURL == ChappieAPIError.manageUsageURL)
            #expect(limit.requestID == "req_\(failure.status)")
        case (.publicAPI(let apiError), let code?):
            #expect(apiError.code == code)
            #expect(apiError.status == failure.status)
            #expect(apiError.requestID == "req_\(failure.status)")
            #expect(apiError.param == failure.param)
            #expect(apiError.errorDescription?.contains("req_\(failure.status)") == true)
            #expect(apiError.recoverySuggestion != nil)
            #expect(apiError.isRetryable == (failure.requests == 3))
        default:
            Issue.record("got \(error)")
        }
        #expect(await transport.requests(endingWith: "/v1/responses").count == failure.requests)
        // No OAuth loop: only a 401 renews the session, once.
        #expect(await transport.requests(endingWith: "/oauth/token").count == (failure.status == 401 ? 1 : 0))
        #expect(!(error.errorDescription ?? "").contains(secret))
        #expect(!String(describing: error).contains(secret) && !String(reflecting: error).contains(secret))
        #expect(!log.renderedLines.contains { $0.contains(secret) })
        // Credentials are kept (no failure here signs the user out).
        #expect(try await configuration.credentialStore.loadCredential(for: configuration.credentialKey) != nil)
    }

    @Test("a 200 stream's response.failed with each plan code maps like its HTTP answer", arguments: [
        ("subscription_sharing_user_not_eligible", ChappieAPIError.Code.userNotEligible),
        ("subscription_sharing_v2_route_not_supported", .routeNotSupported),
        ("chatpass_v2_scope_not_authorized", .scopeNotAuthorized),
        ("something_new", ChappieAPIError.Code(rawValue: "something_new")),
    ])
    func streamFailures(code: String, expected: ChappieAPIError.Code) throws {
        var handler = ResponseEventHandler()
        handler.backend = .publicAPI
        handler.requestID = "req_s"
        let event = try #require(ResponsesEvent.decode(
            #"{"type":"response.failed","response":{"error":{"code":"\#(code)","message":"\#(secret)","param":"p"}}}"#))
        #expect(throws: ChappieClientError.publicAPI(ChappieAPIError(code: expected, param: "p", requestID: "req_s"))) {
            _ = try handler.handle(event) { _ in }
        }
    }

    @Test("invalid_encrypted_content is the same typed error on both backends, with Chappie's sentence on the public API")
    func unreadableEncryptedContent() throws {
        let body = ServerErrorBody(code: "invalid_encrypted_content", type: "invalid_request_error", message: secret)
        guard case .terminal(.unreadableEncryptedContent(let message)) = PublicAPIErrorMapping.classify(
            status: 400, error: body, headers: [:], requestID: nil) else { Issue.record("not mapped"); return }
        #expect(!message.contains(secret))
        let inStream = PublicAPIErrorMapping.streamFailure(body, status: 400, requestID: nil, shown: false)
        #expect((inStream as? ChappieClientError) == .unreadableEncryptedContent(message))
        #expect(ResponsesErrorMapping.http(status: 400, error: body, usage: nil) == .unreadableEncryptedContent(secret))
        #expect(ResponsesErrorMapping.failed(body) == .unreadableEncryptedContent(secret))
    }

    @Test("a new code keeps its raw value; a switch over codes needs a default and keeps compiling as codes are added")
    func unknownCode() {
        let failure = PublicAPIErrorMapping.classify(status: 418, error: ServerErrorBody(code: "brand_new_code", message: secret), headers: [:],
                                                     requestID: nil)
        guard case .terminal(.publicAPI(let error)) = failure else { Issue.record("got \(failure)"); return }
        #expect(error.code.rawValue == "brand_new_code")
        let handled: String = switch error.code {
        case .userNotEligible: "not eligible"
        default: "other"
        }
        #expect(handled == "other")
    }
}
