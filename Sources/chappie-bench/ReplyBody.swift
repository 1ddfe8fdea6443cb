import Foundation

/// A streamed reply in the backend's recorded SSE format (PROTOCOL §5.2, §5.6): `response.created`,
/// `response.in_progress`, the message item and content part, `deltas` one-word
/// `response.output_text.delta` events (with `sequence_number`, `item_id`, `output_index`,
/// `content_index`, `logprobs` and `obfuscation`, as the real backend sends them), then the done
/// events that repeat the whole text, and `response.completed` with usage.
enum ReplyBody {
    /// The words the reply cycles through, one per delta.
    static let words = ["Chappie", " streams", " long", " replies", " in", " linear", " time", ",", " even", " when", " they", " hold", " code", "."]

    /// The SSE bytes of a reply of `deltas` one-word deltas.
    static func sse(deltas: Int) -> Data {
        var text = ""
        var events = ""
        var sequence = 0
        func event(_ type: String, _ fields: String) {
            events += "event: \(type)\ndata: {\"type\":\"\(type)\",\"sequence_number\":\(sequence),\(fields)}\n\n"
            sequence += 1
        }
        let response = #""id":"resp_bench","object":"response","created_at":1764590000,"model":"gpt-5.5","#
        event("response.created", #""response":{\#(response)"status":"in_progress","output":[],"usage":null}"#)
        event("response.in_progress", #""response":{\#(response)"status":"in_progress","output":[],"usage":null}"#)
        event("response.output_item.added", #""output_index":0,"item":{"id":"msg_bench","type":"message","status":"in_progress","content":[],"role":"assistant"}"#)
        event("response.content_part.added", #""item_id":"msg_bench","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}"#)
        events.reserveCapacity(deltas * 190)
        for index in 0..<deltas {
            let word = words[index % words.count]
            text += word
            event("response.output_text.delta",
                  #""item_id":"msg_bench","output_index":0,"content_index":0,"delta":"\#(word)","logprobs":[],"obfuscation":"bG9uZ3RleHQ""#)
        }
        let item = #"{"id":"msg_bench","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"\#(text)"}],"role":"assistant"}"#
        event("response.output_text.done", #""item_id":"msg_bench","output_index":0,"content_index":0,"text":"\#(text)","logprobs":[]"#)
        event("response.content_part.done", #""item_id":"msg_bench","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"\#(text)"}"#)
        event("response.output_item.done", #""output_index":0,"item":\#(item)"#)
        let usage = #"{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":\#(deltas),"output_tokens_details":{"reasoning_tokens":0},"total_tokens":\#(deltas + 12)}"#
        event("response.completed", #""response":{\#(response)"status":"completed","output":[\#(item)],"usage":\#(usage)}"#)
        return Data(events.utf8)
    }

    /// The reply text of ``sse(deltas:)``, in UTF-8 bytes.
    static func textBytes(deltas: Int) -> Int {
        return (0..<deltas).reduce(0) { $0 + words[$1 % words.count].utf8.count }
    }
}
