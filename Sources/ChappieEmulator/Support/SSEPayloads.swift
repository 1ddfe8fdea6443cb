import Foundation

/// The `data` of each event of a complete SSE body (WHATWG HTML §9.2.6, simplified for replay):
/// lines end with CR, LF or CRLF; a leading BOM is dropped; `data` lines (with or without the
/// space after the colon) of one event are joined with LF; a blank line ends an event, and so
/// does the end of the body. Events with empty data or `[DONE]` are skipped; other fields and
/// comments are ignored.
enum SSEPayloads {
    /// The data payloads of `body`, in order.
    static func parse(_ body: Data) -> [String] {
        var bytes = Array(body)
        if bytes.starts(with: Wire.byteOrderMark) { bytes.removeFirst(Wire.byteOrderMark.count) }
        var payloads = [String]()
        var data: [String]?
        func dispatch() {
            if let joined = data?.joined(separator: "\n"), !joined.isEmpty, joined != Wire.done { payloads.append(joined) }
            data = nil
        }
        var index = 0
        while index <= bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            let line = String(decoding: bytes[index..<end], as: UTF8.self)
            if line.isEmpty {
                if end < bytes.count || index < bytes.count { dispatch() }
            } else if line == Wire.dataField || line.hasPrefix(Wire.dataField + ":") {
                var value = line.dropFirst(Wire.dataField.count + (line == Wire.dataField ? 0 : 1))
                if value.hasPrefix(" ") { value = value.dropFirst() }
                data = (data ?? []) + [String(value)]
            }
            if end == bytes.count { break }
            index = end + (bytes[end] == 0x0D && end + 1 < bytes.count && bytes[end + 1] == 0x0A ? 2 : 1)
        }
        dispatch()
        return payloads
    }

    private enum Wire {
        static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        static let dataField = "data"
        static let done = "[DONE]"
    }
}
