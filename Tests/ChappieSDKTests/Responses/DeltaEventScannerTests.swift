import Foundation
import Testing
@testable import ChappieCore

/// The full decoder's reading of a delta event, for comparison with the scanner.
private func fullDecode(_ json: String) -> DeltaEventScanner.Fields? {
    guard let object = (try? ChappieJSONValue(jsonData: Data(json.utf8)))?.objectValue else { return nil }
    return DeltaEventScanner.Fields(type: object["type"]?.stringValue, delta: object["delta"]?.stringValue,
                                    itemID: object["item_id"]?.stringValue)
}

@Suite("Delta event scanner")
struct DeltaEventScannerTests {
    @Test("reads type, delta and item_id of a recorded-format delta and skips the rest")
    func recordedDelta() {
        let json = #"{"type":"response.output_text.delta","sequence_number":12,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" world","logprobs":[],"obfuscation":"abc"}"#
        #expect(DeltaEventScanner.scan(json) == .init(type: "response.output_text.delta", delta: " world", itemID: "msg_1"))
    }

    @Test("agrees with the full JSON decoder", arguments: [
        #"{"type":"response.output_text.delta","delta":"a\"b\\c\/d\b\f\n\r\t"}"#,
        #"{"type":"response.output_text.delta","delta":"\u00e9\u4e2d\ud83d\ude00 é"}"#,
        #"{"delta":"x","type":"response.reasoning_summary_text.delta","summary_index":0}"#,
        #"  {  "type" : "response.output_text.delta" , "delta" : "" }  "#,
        #"{"type":"response.output_text.delta","delta":"x","nested":{"a":[1,-2.5e3,true,false,null,{"b":"}"}],"c":"\""}}"#,
        #"{"type":"response.output_text.delta","n":0,"m":-0.5,"e":1E+2,"delta":"ok"}"#,
        #"{}"#,
        #"{"type":"response.completed","response":{"id":"r"}}"#,
    ])
    func agreesWithFullDecoder(_ json: String) {
        #expect(DeltaEventScanner.scan(json) == fullDecode(json))
    }

    @Test("hands back what a JSON parser rejects or what it does not decode itself", arguments: [
        "", "[DONE]", "[]", #"{"type":"x""#, #"{"type":"x",}"#, #"{"type":"x"} trailing"#, #"{"delta":"\ud800"}"#,
        #"{"delta":"a\x"}"#, #"{"delta":1}"#, #"{"delta":"a","delta":"b"}"#, #"{"n":01}"#, #"{"n":1.}"#, #"{"n":-}"#,
        #"{"n":tru}"#, "{\"delta\":\"tab\there\"}", #"{"a":[1,]}"#, #"{"a":{"b"}}"#, #"{'a':1}"#,
        // Numbers a Double may not hold (the decoder rejects them; found by the fuzzer): an
        // exponent of three digits or more, or a long integer part, is left to the decoder.
        #"{"type":"response.output_text.delta","delta":"a","n":{"a":[3,-2.6666e5663]}}"#, #"{"delta":"a","n":1e400}"#,
        #"{"delta":"a","n":1E-400}"#, #"{"delta":"a","n":\#(String(repeating: "9", count: 400))}"#,
        // A lone surrogate in a skipped key or value (the decoder rejects it; found by the fuzzer).
        #"{"a\uDDDD":[],"delta":"x"}"#, #"{"delta":"x","other":"\uD800z"}"#, #"{"delta":"x","other":"\uD800\u0041"}"#,
    ])
    func handsBackUnusualInput(_ json: String) {
        #expect(DeltaEventScanner.scan(json) == nil)
    }

    @Test("nesting past the depth limit is handed back, not recursed into")
    func deepNesting() {
        let depth = DeltaEventScanner.maximumDepth + 10
        let json = #"{"type":"response.output_text.delta","delta":"x","deep":"# + String(repeating: "[", count: depth)
            + String(repeating: "]", count: depth) + "}"
        #expect(DeltaEventScanner.scan(json) == nil)
        #expect(ResponsesEvent.decode(json) == nil || ResponsesEvent.decode(json) == .outputTextDelta("x", itemID: nil))
    }

    @Test("a delta the scanner hands back still decodes through the full decoder")
    func fallbackStillDecodes() {
        let json = #"{"type":"response.output_text.delta","delta":"é\u00e9","item_id":"msg_1","delta_extra":{"x":[1,2,3]}}"#
        #expect(ResponsesEvent.decode(json) == .outputTextDelta("éé", itemID: "msg_1"))
        let repeated = #"{"type":"response.output_text.delta","delta":"first","delta":"second"}"#
        #expect(ResponsesEvent.decode(repeated) != nil)
    }
}
