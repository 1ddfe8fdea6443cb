import Foundation
import Testing
@testable import ChappieCore

@Suite("JSON text for terminals")
struct JSONValueEscapingTests {
    @Test("C1 controls, bidi overrides and line separators are escaped, and the value reads back the same",
          arguments: ["\u{9B}31m", "evil\u{202E}txt.exe", "a\u{2028}b", "\u{2066}x\u{2069}", "\u{85}", "\u{200F}"])
    func escaped(text: String) throws {
        let value: ChappieJSONValue = ["display_name": .string(text), "plain": "caf\u{E9} \u{2014} ok"]
        let json = value.jsonString
        let dangerous = json.unicodeScalars.filter { (0x80...0x9F).contains($0.value) || (0x2028...0x202E).contains($0.value)
            || (0x2066...0x2069).contains($0.value) || $0.value == 0x200F }
        #expect(dangerous.isEmpty, "raw: \(json.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(json.contains("caf\u{E9} \u{2014} ok"))
        #expect(try ChappieJSONValue(jsonData: Data(json.utf8)) == value)
    }
}
