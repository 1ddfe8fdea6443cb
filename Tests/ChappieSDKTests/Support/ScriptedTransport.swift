@testable import ChappieCore
@testable import ChappieTransport
import Foundation

/// A transport double: answers each request from a script and records what was sent.
actor ScriptedTransport: HTTPTransport {
    /// One scripted answer.
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var chunks: [Data] = []
        var failure: TransportError?

        static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Reply {
            Reply(status: status, headers: headers.merging(["content-type": "application/json"]) { a, _ in a }, chunks: [Data(body.utf8)])
        }
        static func failing(_ error: TransportError) -> Reply { Reply(status: 0, failure: error) }
    }

    private var handler: @Sendable (HTTPRequest, Int) async -> Reply
    private(set) var requests: [HTTPRequest] = []

    init(_ handler: @escaping @Sendable (HTTPRequest, Int) async -> Reply) { self.handler = handler }

    /// Answers from a fixed list, in order; past the end, the last one repeats.
    init(replies: [Reply]) {
        handler = { _, index in replies[min(index, replies.count - 1)] }
    }

    nonisolated func stream(_ request: HTTPRequest) async throws -> (HTTPResponseHead, HTTPByteStream) {
        let reply = await record(request)
        try Task.checkCancellation()  // as a real transport: a cancelled request gets no answer
        if let failure = reply.failure { throw failure }
        let (stream, continuation) = HTTPByteStream.makeStream()
        for chunk in reply.chunks { continuation.yield(chunk) }
        continuation.finish()
        // Sorted by name: a dictionary has no order, a response head has one.
        let headers = HTTPFields(reply.headers.sorted { $0.key < $1.key }.map { HTTPField(name: $0.key, value: $0.value) })
        return (HTTPResponseHead(status: reply.status, headers: headers), stream)
    }

    private func record(_ request: HTTPRequest) async -> Reply {
        let index = requests.count
        requests.append(request)
        return await handler(request, index)
    }

    /// Requests sent to a URL path ending with `suffix`.
    func requests(endingWith suffix: String) -> [HTTPRequest] {
        requests.filter { $0.url.path.hasSuffix(suffix) }
    }
}

extension HTTPRequest {
    /// The body parsed as JSON.
    var jsonBody: ChappieJSONValue? { body.flatMap { try? ChappieJSONValue(jsonData: $0) } }
    /// The body as text.
    var bodyText: String { body.map { String(decoding: $0, as: UTF8.self) } ?? "" }
}
