import ChappieEmulator
@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

/// Every way Swift can print a value.
private func renderings(_ value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return [String(describing: value), String(reflecting: value), dumped]
}

@Suite("Secrets never print")
struct SecretLeakTests {
    @Test("no token-holding type prints a token through description, debugDescription or dump")
    func tokenHoldersAreRedacted() {
        let credential = ChappieAuthFixtures.credential()
        let secrets = [credential.accessTokenForTests, credential.idTokenForTests, credential.refreshTokenForTests!]
        let authorization = Authorization(accessToken: credential.accessTokenForTests, accountID: "acct", generation: 1)
        let grant = DeviceCodeGrant(deviceAuthID: "deviceauth_secret_id",
                                    code: ChappieDeviceCode(userCode: "ABCD", verificationURL: URL(string: "https://x")!, expiresAt: Date(), pollingInterval: 5),
                                    deadline: Date())
        let tokenResponse = TokenResponse(idToken: secrets[1], accessToken: secrets[0], refreshToken: secrets[2], expiresIn: 1)
        let values: [Any] = [credential, authorization, grant, tokenResponse, [credential], Optional(credential) as Any]
        for value in values {
            for text in renderings(value) {
                for secret in secrets + ["deviceauth_secret_id"] {
                    #expect(!text.contains(secret), "leaked through \(type(of: value))")
                }
            }
        }
    }

    @Test("error messages built from server text never carry a token or an Authorization header")
    func errorMessagesAreRedacted() {
        let credential = ChappieAuthFixtures.credential()
        let body = #"{"detail":"bad header Authorization: Bearer \#(credential.accessTokenForTests) and refresh_token=\#(credential.refreshTokenForTests!)"}"#
        let error = ServerErrorBody(data: Data(body.utf8), status: 400)
        for text in [error.message, ChappieClientError.invalidRequest(error.message).errorDescription ?? ""] {
            #expect(!text.contains(credential.accessTokenForTests))
            #expect(!text.contains(credential.refreshTokenForTests!))
        }
    }

    @Test("terminal escape sequences and control characters are stripped from server text")
    func sanitize() {
        #expect(Redaction.clean("ok\u{1B}[31mred\u{1B}[0m\u{07}done") == "okreddone")
    }

    @Test("an unregistered JWT-shaped string is still redacted")
    func jwtShapes() {
        let text = Redaction.clean("token eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.c2ln here")
        #expect(!text.contains("eyJzdWIiOiIxIn0"))
    }

    @Test("a token split by zero-width characters is still redacted in messages")
    func zeroWidthSplit() {
        let text = Redaction.clean("token e\u{200B}yJhbGciOiJub25lIn0.eyJz\u{2060}dWIiOiIxIn0.c2ln and rt_TmXu_zQ5Ko\u{200C}gAbCdEfGhIjKlMn")
        #expect(!text.contains("eyJ") && !text.contains("rt_TmXu"), "\(text)")
        #expect(text.contains("[redacted]"))
    }

    @Test("refresh tokens and API keys in a server message are redacted")
    func refreshTokenShapes() {
        let text = Redaction.clean("msg with rt_TmXu_zQ5KogAbCdEfGhIjKlMn and sk-AbCdEfGhIjKlMnOpQr1234 end")
        #expect(!text.contains("rt_TmXu_zQ5KogAbCdEfGhIjKlMn"))
        #expect(!text.contains("sk-AbCdEfGhIjKlMnOpQr1234"))
        #expect(text.hasPrefix("msg with ") && text.hasSuffix(" end"))
    }
}

@Suite("Log sink")
struct LogSinkTests {
    @Test("the SDK logs structured events to an installed sink, and no event contains a token")
    func sinkNeverSeesSecrets() async throws {
        let sink = ChappieInMemoryLogSink()
        try await withSignedInClient(configure: { $0.logSink = sink }) { emulator, client, configuration in
            await emulator.expireAccessTokens()
            _ = try await client.send("log me")
            let tokens = try #require(try await configuration.credentialStore.loadCredential(for: configuration.credentialKey))
            let lines = sink.renderedLines
            #expect(lines.contains { $0.hasPrefix("responses.completed") })
            #expect(lines.contains { $0.hasPrefix("refresh.succeeded") })
            for line in lines {
                #expect(!line.contains(tokens.accessTokenForTests))
                #expect(!line.contains(tokens.refreshTokenForTests ?? "-"))
                #expect(!line.localizedCaseInsensitiveContains("bearer"))
            }
        }
    }

    @Test("without a sink nothing is logged")
    func silentByDefault() {
        #expect(ChappieConfiguration().logSink == nil)
    }
}

@Suite("Redaction of known secrets")
struct KnownSecretsTests {
    @Test("past its capacity the redactor forgets the oldest secrets, never the newest")
    func newestKept() {
        let marker = UUID().uuidString.prefix(8)
        let secrets = (0...(Redaction.maximumKnownSecrets + 10)).map { "plain\(marker)value\($0)xyz" }
        for secret in secrets { Redaction.register(secret) }
        #expect(!Redaction.clean("leaked \(secrets.last!)").contains(secrets.last!))
        let middle = secrets[secrets.count / 2]  // far from both ends, whatever other tests register meanwhile
        #expect(!Redaction.clean("leaked \(middle)").contains(middle))
    }
}
