@testable import ChappieTransport
import Foundation
import Testing

@Suite("HTTP fields")
struct HTTPFieldsTests {
    @Test("a name is found whatever its case; the first of a repeated name is the value, all are the values")
    func caseInsensitiveLookup() {
        // given
        let fields: HTTPFields = ["X-Models-Etag": "v1", "Retry-After": "3", "x-codex-primary-used-percent": "42", "retry-after": "9"]
        // then
        #expect(fields["x-models-etag"] == "v1")
        #expect(fields["X-MODELS-ETAG"] == "v1")
        #expect(fields["RETRY-AFTER"] == "3")
        #expect(fields.values("retry-after") == ["3", "9"])
        #expect(fields["X-Codex-Primary-Used-Percent"] == "42")
        #expect(fields["x-absent"] == nil && fields.values("x-absent").isEmpty && !fields.contains("x-absent"))
        #expect(fields.contains("x-MODELS-etag"))
    }

    @Test("fields keep the order and spelling they were added in, duplicates included")
    func orderKept() {
        // given
        var fields: HTTPFields = ["originator": "app", "User-Agent": "ua"]
        fields.append(name: "Accept", value: "text/event-stream")
        fields.append(HTTPField(name: "accept", value: "application/json"))
        let combined = fields + ["Authorization": "Bearer t", "originator": "second"]
        // then
        #expect(combined.map(\.name) == ["originator", "User-Agent", "Accept", "accept", "Authorization", "originator"])
        #expect(combined.map(\.value) == ["app", "ua", "text/event-stream", "application/json", "Bearer t", "second"])
        #expect(combined.values("ACCEPT") == ["text/event-stream", "application/json"])
        #expect(combined.removing(["accept"]).map(\.name) == ["originator", "User-Agent", "Authorization", "originator"])
    }

    @Test("a name that is not a token or a value HTTP does not allow is refused, naming the field but never the value",
          arguments: [("x-test", "a\r\nX-Injected: 1", "x-test"), ("x-test", "a\u{0}b", "x-test"), ("x-test", " padded", "x-test"),
                      ("a b", "fine", HTTPFieldSyntax.unprintableName), ("", "fine", HTTPFieldSyntax.unprintableName),
                      ("x\r\nInjected", "fine", HTTPFieldSyntax.unprintableName)])
    func invalidRejected(name: String, value: String, reported: String) {
        // given
        let fields: HTTPFields = ["Accept": "application/json", name: value, "later": "a\nb"]
        // then
        #expect(fields.firstInvalidField == reported)
        #expect(throws: TransportError.invalidHeaderField(reported)) { try fields.validate() }
    }

    @Test("valid fields pass, an empty value included")
    func validAccepted() throws {
        let fields: HTTPFields = ["Authorization": "Bearer a.b.c", "Expect": "", "x-name": "caf\u{E9} au lait"]
        #expect(fields.firstInvalidField == nil)
        try fields.validate()
    }

    @Test("a description, debug description or dump never shows a credential's value")
    func credentialsRedacted() {
        // given
        let secret = "Bearer eyJhbGciOi.secret-token.sig"
        let fields: HTTPFields = ["authorization": secret, "Cookie": "session=abc123", "Accept": "application/json",
                                  "X-Forwarded-Token": "Bearer eyJhbGciOi.secret-token.sig"]
        let request = HTTPRequest(method: .post, url: URL(string: "https://chatgpt.com/backend-api/codex/responses")!,
                                  headers: fields)
        var dumped = ""
        dump(request, to: &dumped)
        // then
        for text in [fields.description, fields.debugDescription, String(describing: request), String(reflecting: request), dumped,
                     "\(request.headers)"] {
            #expect(!text.contains("secret-token") && !text.contains("abc123"), "\(text)")
        }
        #expect(fields.description == "[authorization: [redacted], Cookie: [redacted], Accept: application/json, X-Forwarded-Token: Bearer [redacted]]")
    }

    @Test("a method is its token, as spelled")
    func methods() {
        #expect(HTTPMethod.get.rawValue == "GET" && HTTPMethod.post.rawValue == "POST" && HTTPMethod.delete.rawValue == "DELETE")
        let method: HTTPMethod = "PROPFIND"
        #expect(method == HTTPMethod("PROPFIND") && method != .get && "\(method)" == "PROPFIND")
        #expect(HTTPMethod("get") != .get)
    }
}
