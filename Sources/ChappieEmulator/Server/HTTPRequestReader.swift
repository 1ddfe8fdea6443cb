import Foundation

/// Reads HTTP/1.1 requests (RFC 9112) from one connected socket, keeping leftover bytes between
/// requests so keep-alive and pipelining work. Bodies may use `Content-Length` or
/// `Transfer-Encoding: chunked`; sizes are capped.
final class HTTPRequestReader {
    /// What reading the next request produced.
    enum Outcome {
        /// A complete request.
        case request(HTTPRequest)
        /// The peer closed the connection cleanly between requests.
        case closed
        /// The bytes were not acceptable; answer with `status` and close.
        case rejected(status: Int, detail: String)
    }

    private let fd: Int32
    private var buffer = [UInt8]()
    private var start = 0

    /// Largest accepted request line plus header block, in bytes.
    static let maximumHeaderBytes = 32 * 1024
    /// Largest accepted number of header fields.
    static let maximumHeaderCount = 128
    /// Largest accepted (decoded) body, in bytes: 96 MiB, room for a request carrying the
    /// 50 MB of inline images the Responses API documents per request (base64 makes them a third
    /// larger) besides its history. The real backend's own limit is not published.
    static let maximumBodyBytes = 96 * 1024 * 1024

    /// Creates a reader over the connected socket `fd` (not owned).
    init(fd: Int32) { self.fd = fd }

    /// Reads the next request. `sendInterim` writes an interim response (`100 Continue`).
    func next(sendInterim: ([UInt8]) -> Void) -> Outcome {
        // Head: up to and including the blank line.
        var headEnd: Int?
        while true {
            // Tolerate empty lines before a request line (RFC 9112 §2.2).
            while available >= 2, buffer[start] == 0x0D, buffer[start + 1] == 0x0A { start += 2 }
            headEnd = findHeadEnd()
            if headEnd != nil { break }
            if available > Self.maximumHeaderBytes {
                return .rejected(status: 431, detail: Wire.headersTooLarge)
            }
            guard let bytes = SocketIO.receive(fd) else { return available == 0 ? .closed : .rejected(status: 400, detail: Wire.malformed) }
            if bytes.isEmpty { return available == 0 ? .closed : .rejected(status: 400, detail: Wire.malformed) }
            compact()
            buffer.append(contentsOf: bytes)
        }
        guard let end = headEnd, end - start <= Self.maximumHeaderBytes else {
            return .rejected(status: 431, detail: Wire.headersTooLarge)
        }
        guard let headText = UTF8Text.decode(buffer[start..<end])
            ?? String(bytes: buffer[start..<end], encoding: .isoLatin1)
        else { return .rejected(status: 400, detail: Wire.malformed) }
        start = end + 4

        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[0].allSatisfy(Wire.isTokenCharacter),
            requestLine[1].hasPrefix("/") || requestLine[1] == "*"
        else { return .rejected(status: 400, detail: Wire.malformed) }
        guard requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0" else {
            return requestLine[2].hasPrefix("HTTP/")
                ? .rejected(status: 505, detail: Wire.version) : .rejected(status: 400, detail: Wire.malformed)
        }
        guard lines.count <= Self.maximumHeaderCount else { return .rejected(status: 431, detail: Wire.headersTooLarge) }
        var headers = [(name: String, value: String)]()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .rejected(status: 400, detail: Wire.malformed) }
            let name = String(line[..<colon])
            guard !name.isEmpty, name.allSatisfy(Wire.isTokenCharacter) else {
                return .rejected(status: 400, detail: Wire.malformed)
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.append((name, value))
        }
        let target = String(requestLine[1])
        let questionMark = target.firstIndex(of: "?")
        var request = HTTPRequest(
            method: String(requestLine[0]),
            path: questionMark.map { String(target[..<$0]) } ?? target,
            query: questionMark.map { String(target[target.index(after: $0)...]) },
            headers: headers,
            body: Data()
        )
        if requestLine[2] == "HTTP/1.0", request.header("Connection")?.lowercased() != "keep-alive" {
            request.headers.append(("Connection", "close"))
        }

        let expectsContinue = request.header("Expect")?.lowercased() == "100-continue"
        if let transferEncoding = request.header("Transfer-Encoding") {
            guard transferEncoding.lowercased().split(separator: ",").last?.trimmingCharacters(in: .whitespaces) == "chunked"
            else { return .rejected(status: 400, detail: Wire.badTransferEncoding) }
            if expectsContinue { sendInterim(Array(Wire.continueLine.utf8)) }
            switch readChunkedBody() {
            case .success(let body): request.body = body
            case .failure(let rejection): return .rejected(status: rejection.status, detail: rejection.detail)
            }
        } else if let lengthText = request.header("Content-Length") {
            let lengths = Set(lengthText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            guard lengths.count == 1, let only = lengths.first, !only.isEmpty, only.allSatisfy(\.isASCII),
                only.allSatisfy(\.isNumber), let length = Int(only)
            else { return .rejected(status: 400, detail: Wire.badLength) }
            guard length <= Self.maximumBodyBytes else { return .rejected(status: 413, detail: Wire.bodyTooLarge) }
            if expectsContinue, length > available { sendInterim(Array(Wire.continueLine.utf8)) }
            guard fill(upTo: length) else { return .rejected(status: 400, detail: Wire.truncated) }
            request.body = Data(buffer[start..<start + length])
            start += length
        }
        return .request(request)
    }

    private struct Rejection: Error {
        var status: Int
        var detail: String
    }

    private func readChunkedBody() -> Result<Data, Rejection> {
        var body = Data()
        while true {
            guard let line = readLine() else { return .failure(Rejection(status: 400, detail: Wire.truncated)) }
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            guard !sizeText.isEmpty, sizeText.count <= 16, let size = Int(sizeText, radix: 16), size >= 0 else {
                return .failure(Rejection(status: 400, detail: Wire.badChunk))
            }
            if size == 0 {
                // Trailer fields until the blank line (RFC 9112 §7.1.2); ignored.
                while true {
                    guard let trailer = readLine() else { return .failure(Rejection(status: 400, detail: Wire.truncated)) }
                    if trailer.isEmpty { return .success(body) }
                }
            }
            guard body.count + size <= Self.maximumBodyBytes else {
                return .failure(Rejection(status: 413, detail: Wire.bodyTooLarge))
            }
            guard fill(upTo: size + 2) else { return .failure(Rejection(status: 400, detail: Wire.truncated)) }
            body.append(contentsOf: buffer[start..<start + size])
            guard buffer[start + size] == 0x0D, buffer[start + size + 1] == 0x0A else {
                return .failure(Rejection(status: 400, detail: Wire.badChunk))
            }
            start += size + 2
        }
    }

    /// Reads one CRLF-terminated line (without the CRLF), or nil when the peer is gone or the line is too long.
    private func readLine() -> String? {
        while true {
            if let lineFeed = buffer[start...].firstIndex(of: 0x0A) {
                var end = lineFeed
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = lineFeed + 1
                return line
            }
            guard available < Self.maximumHeaderBytes, let bytes = SocketIO.receive(fd), !bytes.isEmpty else { return nil }
            compact()
            buffer.append(contentsOf: bytes)
        }
    }

    /// Removes and returns the bytes read past the last request (the start of an upgraded protocol).
    func takeBufferedBytes() -> [UInt8] {
        let rest = Array(buffer[start...])
        buffer.removeAll()
        start = 0
        return rest
    }

    private var available: Int { buffer.count - start }

    private func fill(upTo count: Int) -> Bool {
        while available < count {
            guard let bytes = SocketIO.receive(fd), !bytes.isEmpty else { return false }
            compact()
            buffer.append(contentsOf: bytes)
        }
        return true
    }

    private func compact() {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private func findHeadEnd() -> Int? {
        guard available >= 4 else { return nil }
        var index = start
        while index + 3 < buffer.count {
            if buffer[index] == 0x0D, buffer[index + 1] == 0x0A, buffer[index + 2] == 0x0D, buffer[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        return nil
    }

    private enum Wire {
        static let continueLine = "HTTP/1.1 100 Continue\r\n\r\n"
        static let malformed = "Malformed HTTP request"
        static let version = "HTTP version not supported"
        static let headersTooLarge = "Request header fields too large"
        static let bodyTooLarge = "Request body too large"
        static let badLength = "Invalid Content-Length"
        static let badTransferEncoding = "Unsupported Transfer-Encoding"
        static let badChunk = "Malformed chunked body"
        static let truncated = "Request body ended early"
        static func isTokenCharacter(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+-.^_`|~".contains(character))
        }
    }
}
