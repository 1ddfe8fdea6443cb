import Foundation
import Testing
@testable import ChappieEmulator

/// A request on `path` with a body of `bytes` bytes.
private func request(_ path: String, bytes: Int = 0) -> HTTPRequest {
    HTTPRequest(method: "POST", path: path, query: nil, headers: [], body: Data(repeating: 0x61, count: bytes))
}

@Suite("Request recorder")
struct RequestRecorderTests {
    @Test("the oldest requests go first past the count limit; each body is cut to its limit")
    func limits() async {
        let recorder = RequestRecorder(limits: .init(maximumRequests: 3, maximumBodyBytes: 4, maximumTotalBodyBytes: 100))
        for index in 0..<5 { await recorder.record(request("/r\(index)", bytes: index * 3)) }
        let kept = await recorder.all()
        #expect(kept.map(\.path) == ["/r2", "/r3", "/r4"])
        #expect(kept.map(\.body.count) == [4, 4, 4])
        #expect(kept.map(\.bodyByteCount) == [6, 9, 12])
    }

    @Test("past the total body limit the oldest go first, but the newest request is always kept")
    func totalLimit() async {
        let recorder = RequestRecorder(limits: .init(maximumRequests: 100, maximumBodyBytes: 10, maximumTotalBodyBytes: 25))
        for index in 0..<4 { await recorder.record(request("/r\(index)", bytes: 10)) }
        #expect(await recorder.all().map(\.path) == ["/r2", "/r3"])
        let tiny = RequestRecorder(limits: .init(maximumRequests: 100, maximumBodyBytes: 10, maximumTotalBodyBytes: 5))
        await tiny.record(request("/only", bytes: 10))
        #expect(await tiny.all().map(\.path) == ["/only"])
    }

    @Test("next(path:) hands out each request once in order, skipping ones already dropped")
    func nextAfterEviction() async {
        let recorder = RequestRecorder(limits: .init(maximumRequests: 2, maximumBodyBytes: 10, maximumTotalBodyBytes: 100))
        await recorder.record(request("/a", bytes: 1))
        #expect(await recorder.next(path: "/a").bodyByteCount == 1)
        for bytes in 2...4 { await recorder.record(request("/a", bytes: bytes)) }
        // the request with 2 bytes was dropped before anyone asked for it
        #expect(await recorder.next(path: "/a").bodyByteCount == 3)
        #expect(await recorder.next(path: "/a").bodyByteCount == 4)
        async let waiting = recorder.next(path: "/a")
        await recorder.record(request("/b", bytes: 9))
        await recorder.record(request("/a", bytes: 5))
        #expect(await waiting.bodyByteCount == 5)
    }
}
