@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

/// Errors name the address that failed, never its query or a token, and name a status once.
@Suite("Error messages name the address")
struct ErrorAddressTests {
    /// A loopback port nothing listens on (the discard port; tests never start a server there).
    private static let refused = URL(string: "http://127.0.0.1:9")!

    @Test("a refused connection names the host and path, without the query or the token", arguments: TransportKind.allCases)
    func refusedConnection(_ transport: TransportKind) async throws {
        let credential = ChappieAuthFixtures.credential()
        let configuration = try await ChappieAuthFixtures.signedIn(
            ChappieConfiguration(streamingTransportPolicy: .httpSSEOnly,
                                 endpoints: ChappieEndpoints(authIssuer: Self.refused, backend: Self.refused.appending(path: "backend-api"))),
            credential: credential)
        let client = ChappieClient(configuration: configuration, transport: transport.make(), timeSource: ChappieVirtualTime().timeSource)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.models() }
        let description = try #require(error?.errorDescription)
        #expect(description.hasPrefix("Could not reach http://127.0.0.1:9/backend-api/codex/models: "), "\(description)")
        #expect(!description.contains("client_version") && !description.contains("?"), "\(description)")
        #expect(!description.contains(credential.accessToken), "\(description)")
        if transport == .platformDefault { #expect(description.hasSuffix(": connection refused"), "\(description)") }
    }

    @Test("an address shown in an error keeps no query, fragment, user or password")
    func displayedURL() throws {
        let url = try #require(URL(string: "https://user:secret@auth.example.com:8443/oauth/token?code=ac_123456789&state=s#frag"))
        #expect(DisplayedURL.string(url) == "https://auth.example.com:8443/oauth/token")
        let message = TransportError.network(message: "connection refused", mayHaveReachedServer: false).message(at: url)
        #expect(message == "could not reach https://auth.example.com:8443/oauth/token: connection refused")
        #expect(ChappieAuthError.network(message).errorDescription == "Could not reach https://auth.example.com:8443/oauth/token: connection refused")
        #expect(ChappieAuthError.network("no route").errorDescription == "Could not reach the sign-in server: no route")
    }

    @Test("an HTML error page names its status once", arguments: [501, 502, 404])
    func htmlErrorPage(status: Int) {
        let body = ServerErrorBody(data: Data("<html><body>\(status) Not Implemented</body></html>".utf8), status: status)
        let description = BackendFailure.classify(status: status, error: body).finalError.errorDescription ?? ""
        #expect(description == "The server answered HTTP \(status): an HTML error page", "\(description)")
        #expect(description.components(separatedBy: "\(status)").count == 2, "\(description)")
    }
}
