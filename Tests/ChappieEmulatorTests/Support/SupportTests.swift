import Foundation
import Testing

@testable import ChappieEmulator

@Suite("Support: SHA-256, JSON, base64url")
struct SupportTests {
    @Test("SHA-256 matches the FIPS 180-2 test vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256Vectors(input: String, expected: String) {
        let hex = SHA256.digest(Array(input.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == expected)
    }

    @Test("SHA-1 matches the RFC 3174 test vectors", arguments: [
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1Vectors(input: String, expected: String) {
        #expect(SHA1.digest(Array(input.utf8)).map { String(format: "%02x", $0) }.joined() == expected)
    }

    @Test("The WebSocket accept value matches the RFC 6455 §1.3 example")
    func webSocketAccept() {
        #expect(WebSocketConnection.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("SHA-256 of a million 'a' matches the long test vector")
    func sha256Million() {
        let hex = SHA256.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)).map { String(format: "%02x", $0) }
            .joined()
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("A PKCE challenge matches one computed independently with Python's hashlib")
    func pkceChallengeMatchesReference() {
        // python3 -c "import hashlib,base64;print(base64.urlsafe_b64encode(hashlib.sha256(b'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWStjQ-cM').digest()).rstrip(b'='))"
        #expect(pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWStjQ-cM") == "x-EgZNh-Nd_BReDjanZxxw-xFxwtlk5See6gZdRM0kk")
    }

    @Test("The JSON parser keeps key order, escapes, numbers and rejects garbage")
    func jsonRoundTrip() throws {
        let text = #"{"b":1,"a":[true,false,null,-2.5,"\u00e9\n\ud83d\ude00"],"c":{}}"#
        let value = try #require(JSONValue.parse(Data(text.utf8)))
        #expect(value.objectMembers?.map(\.0) == ["b", "a", "c"])
        #expect(value["a"]?.arrayValue?[4].stringValue == "é\n😀")
        #expect(value.serialized == #"{"b":1,"a":[true,false,null,-2.5,"é\n😀"],"c":{}}"#)
        #expect(JSONValue.parse(Data("{\"a\":}".utf8)) == Optional<JSONValue>.none)
        #expect(JSONValue.parse(Data("[1,]".utf8)) == Optional<JSONValue>.none)
        #expect(JSONValue.parse(Data("{} x".utf8)) == Optional<JSONValue>.none)
    }
}
