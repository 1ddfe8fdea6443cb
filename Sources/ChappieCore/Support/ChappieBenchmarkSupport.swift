import ChappieTransport
import Foundation

/// Entry points into internal machinery for `chappie-bench` only (SPI, not part of the API).
@_spi(ChappieBenchmarks)
public enum ChappieBenchmarkSupport {
    /// Parses `data` as SSE in chunks of `chunkSize` bytes and decodes every event's JSON by its
    /// `type`, as a stream would; returns the number of Responses events decoded.
    public static func decodeSSE(_ data: Data, chunkSize: Int) -> Int {
        var parser = SSEParser()
        var count = 0
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunkSize, data.count)
            for event in (try? parser.feed(data[offset..<end])) ?? [] where ResponsesEvent.decode(event.data, fallbackType: event.type) != nil {
                count += 1
            }
            offset = end
        }
        for event in (try? parser.finish()) ?? [] where ResponsesEvent.decode(event.data, fallbackType: event.type) != nil { count += 1 }
        return count
    }

    /// Builds the request body for a transcript of `messageCount` alternating messages of
    /// `characters` characters each; returns its size in bytes.
    public static func encodeRequest(messageCount: Int, characters: Int) -> Int {
        let text = String(repeating: "x", count: characters)
        let items = (0..<messageCount).map { index in
            ChappieTranscriptItem.message(index % 2 == 0 ? .user(text) : .assistant(text))
        }
        let body = ResponsesRequestBody(model: "gpt-5.5", instructions: ChappieHarness.defaultInstructions,
                                        input: ChappieTranscriptItem.replayInput(items), tools: [], reasoningEffort: nil,
                                        promptCacheKey: "bench")
        return body.json.jsonString.utf8.count
    }
}

@_spi(ChappieBenchmarks)
extension ChappieBenchmarkSupport {
    /// A client on the platform's transports that compresses `/responses` bodies when
    /// `compressesRequests` (the public initializer decides by backend), without prewarming.
    public static func client(configuration: ChappieConfiguration, compressesRequests: Bool) -> ChappieClient {
        ChappieClient(configuration: configuration, transport: HTTPTransports.platformDefault(), webSockets: WebSocketConnectors.platformDefault(),
                      timeSource: .system, compressesRequests: compressesRequests)
    }
}
