@_spi(ChappieCredentialStorage) import ChappieCore
import ChappieSDKTesting
import Foundation
import Testing

@Suite("Credential encoding")
struct CredentialEncodingTests {
    @Test("app code cannot encode a credential to read its tokens: it is Decodable, not Encodable")
    func notEncodable() {
        let credential: Any = ChappieAuthFixtures.credential()
        #expect(!(credential is any Encodable))
        #expect(credential is any Decodable)
    }

    @Test("a store opting in through SPI round-trips the credential in the stored JSON layout")
    func storageRoundTrip() throws {
        let credential = ChappieAuthFixtures.credential()
        let data = try credential.encodedForStorage()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["id_token", "access_token", "refresh_token", "account_id", "access_token_expires_at", "obtained_at"])
        #expect(try ChappieCredential(storageData: data) == credential)
        #expect(try JSONDecoder().decode(ChappieCredential.self, from: data) == credential)
    }
}
