// libFuzzer entry point for ChappieSDK's parsers, compiled together with the SDK's sources by
// scripts/fuzz (`swiftc -sanitize=fuzzer,address`). CHAPPIE_FUZZ_TARGET picks the target:
// `sse` (the byte-level SSE parser, fed in two chunks split at the first byte's value),
// `events` (the Responses event decoder), `jwt` (the JWT claim decoder).
import Foundation

private let target = ProcessInfo.processInfo.environment["CHAPPIE_FUZZ_TARGET"] ?? "sse"

@_cdecl("LLVMFuzzerTestOneInput")
public func chappieFuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    switch target {
    case "events":
        let text = String(decoding: bytes, as: UTF8.self)
        _ = ResponsesEvent.decode(text, fallbackType: "response.output_text.delta")
    case "jwt":
        let claims = JWTClaims(token: String(decoding: bytes, as: UTF8.self))
        _ = (claims?.accountID, claims?.email, claims?.expiresAt, claims?.planType, claims?.userID)
    default:
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        let fresh = SSEParser(maximumLineBytes: 1 << 16, maximumEventBytes: 1 << 17)
        var whole = fresh
        var chunked = fresh
        let expected = try? whole.feed(bytes) + whole.finish()
        let actual = try? chunked.feed(bytes[..<split]) + chunked.feed(bytes[split...]) + chunked.finish()
        if let expected, let actual, expected != actual { fatalError("chunking changed the events") }
    }
    return 0
}
