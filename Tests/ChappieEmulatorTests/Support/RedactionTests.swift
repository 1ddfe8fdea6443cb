import ChappieEmulator
import Foundation
import Testing

@Suite("Secret-bearing values print without secrets (STYLE §12)")
struct RedactionTests {
    @Test("Issued tokens and recorded requests hide tokens in description, debugDescription and dump")
    func redaction() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            _ = try await http.get("/backend-api/wham/usage", bearer: tokens.accessToken)
            let request = try #require(await emulator.recordedRequests().last)
            for value in [tokens as Any, request as Any] {
                var dumped = ""
                dump(value, to: &dumped)
                for text in [String(describing: value), String(reflecting: value), dumped] {
                    #expect(!text.contains(tokens.accessToken))
                    #expect(!text.contains(tokens.refreshToken))
                    #expect(!text.contains(tokens.idToken))
                }
            }
        }
    }
}
