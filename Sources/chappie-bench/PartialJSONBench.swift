import ChappieSDK
import Foundation

/// Typed output streamed through the public API: `ChappieClient.stream(_:generating:)` on JSON
/// replies of two sizes (by default about 100 KB and 500 KB, in 16-byte deltas) that a child
/// emulator replays in the backend's SSE format. Every delta the client reads yields a partial
/// snapshot; the figure is the client's CPU seconds for the whole reply, and the large/small ratio
/// states the growth (linear: about the size ratio, 5; a parser that re-read the prefix per delta
/// would be about 25). Release build, 2026-12-01, this machine: 100 KB 0.066 s, 500 KB 0.220 s
/// (ratio 3.3). Not 1 MB: the wall time, spent outside the client process (its CPU stays linear),
/// grows faster than the size (0.6 s, 7 s), and at 1 MB the emulator child's answer passes the
/// client's 30-second response-head timeout.
enum PartialJSONBench {
    /// The generated type: a catalog of items.
    struct Catalog: ChappieGenerable {
        struct Item: Decodable {
            var name: String
            var count: Int
            var tags: [String]
        }

        var title: String
        var items: [Item]
    }

    /// Chappie's figure for a size is the best of this many runs, after one warm-up run.
    static let repetitions = 3

    /// Runs each size (approximate reply bytes) and returns one result per size plus the growth.
    static func run(sizes: [Int]) async throws -> [[String: Any]] {
        var results: [[String: Any]] = []
        var cpuBySize: [Int: Double] = [:]
        for size in sizes {
            let (body, replyBytes, itemCount) = sse(approximateBytes: size)
            let file = FileManager.default.temporaryDirectory.appending(path: "chappie-bench-\(UUID()).sse")
            try body.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let emulator = try EmulatorProcess(replayFile: file)
            defer { emulator.stop() }
            let client = ChappieClient(configuration: try await BenchConfiguration.make(for: emulator))
            _ = try await stream(client)
            var (cpu, wall, partials, items) = (Double.infinity, Double.infinity, 0, 0)
            for _ in 0..<repetitions {
                let run = try await stream(client)
                (cpu, wall, partials, items) = (min(cpu, run.cpu), min(wall, run.wall), run.partials, run.items)
            }
            guard items == itemCount else { throw BenchError("decoded \(items) of \(itemCount) items") }
            cpuBySize[size] = cpu
            results.append(["bench": "partial_json", "reply_bytes": replyBytes, "partial_snapshots": partials,
                            "chappie_cpu_seconds": cpu, "chappie_wall_seconds": wall])
        }
        if let small = sizes.first, let large = sizes.last, small != large, let smallCPU = cpuBySize[small], let largeCPU = cpuBySize[large] {
            results.append(["bench": "partial_json_growth", "size_ratio": Double(large) / Double(small), "cpu_ratio": largeCPU / smallCPU])
        }
        return results
    }

    /// One typed reply: CPU and wall seconds, partial snapshots seen, items decoded.
    static func stream(_ client: ChappieClient) async throws -> (cpu: Double, wall: Double, partials: Int, items: Int) {
        var partials = 0
        var items = 0
        let cpuStart = CPUClock.now()
        let wallStart = CPUClock.wall()
        for try await event in client.stream("bench", generating: Catalog.self) {
            switch event {
            case .partial:
                partials += 1
            case .completed(let catalog, _): items = catalog.items.count
            case .event: break
            }
        }
        return (CPUClock.now() - cpuStart, CPUClock.wall() - wallStart, partials, items)
    }

    /// The SSE body of a catalog reply of about `approximateBytes` bytes, in 16-byte deltas.
    static func sse(approximateBytes: Int) -> (body: Data, replyBytes: Int, items: Int) {
        var reply = #"{"title":"Bench catalog","items":["#
        var count = 0
        while reply.utf8.count < approximateBytes {
            if count > 0 { reply += "," }
            reply += #"{"name":"item number \#(count)","count":\#(count),"tags":["fresh","bench","\#(count % 7)"]}"#
            count += 1
        }
        reply += "]}"
        let bytes = Array(reply.utf8)
        var events = ""
        var sequence = 0
        func event(_ type: String, _ fields: String) {
            events += "event: \(type)\ndata: {\"type\":\"\(type)\",\"sequence_number\":\(sequence),\(fields)}\n\n"
            sequence += 1
        }
        let response = #""id":"resp_bench","object":"response","created_at":1764590000,"model":"gpt-5.5","#
        event("response.created", #""response":{\#(response)"status":"in_progress","output":[],"usage":null}"#)
        event("response.output_item.added", #""output_index":0,"item":{"id":"msg_bench","type":"message","status":"in_progress","content":[],"role":"assistant"}"#)
        var start = 0
        while start < bytes.count {
            let end = min(start + 16, bytes.count)
            let piece = String(decoding: bytes[start..<end], as: UTF8.self)
            event("response.output_text.delta", #""item_id":"msg_bench","output_index":0,"content_index":0,"delta":\#(quoted(piece))"#)
            start = end
        }
        let item = #"{"id":"msg_bench","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":\#(quoted(reply))}],"role":"assistant"}"#
        event("response.output_item.done", #""output_index":0,"item":\#(item)"#)
        let usage = #"{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":13}"#
        event("response.completed", #""response":{\#(response)"status":"completed","output":[\#(item)],"usage":\#(usage)}"#)
        return (Data(events.utf8), bytes.count, count)
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
