import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking socket work on its own thread, so a test never parks a thread of the small
/// cooperative pool (2 cores here) that the emulator's handlers also need.
func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A raw TCP client for tests that URLSession cannot express: several requests on one
/// connection, hand-made chunked bodies, malformed requests, and early disconnects.
/// Use it from one test at a time, and call its blocking reads through ``offPool(_:)``.
final class RawHTTPConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffer = [UInt8]()
    /// The `errno` of the last failed read (e.g. `ECONNRESET`), 0 when reads ended cleanly.
    private(set) var lastReadError: Int32 = 0

    /// Whether the server reset the connection (a read failed with `ECONNRESET`).
    var wasReset: Bool { lastReadError == ECONNRESET }

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
        // A backstop, not a wait: a read that gets nothing for a minute ends (as EOF), so a test
        // waiting for something the server never sends fails instead of hanging the run.
        var limit = timeval(tv_sec: 60, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    /// Sends raw bytes.
    func write(_ text: String) { write(Array(text.utf8)) }

    /// Sends raw bytes.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBufferPointer { send(fd, $0.baseAddress! + offset, bytes.count - offset, Self.sendFlags) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Closes the connection now.
    func closeNow() { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    /// A parsed response.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// Reads one response (Content-Length or chunked body); nil when the server closed first.
    func readResponse() -> Response? {
        guard let (status, headers) = readHead() else { return nil }
        if status == 100 { return readResponse() }
        var body = Data()
        if headers["transfer-encoding"] == "chunked" {
            while true {
                guard let lineEnd = readUntil([13, 10]) else { return nil }
                let size = Int(String(decoding: buffer[0..<lineEnd], as: UTF8.self), radix: 16) ?? 0
                buffer.removeFirst(lineEnd + 2)
                guard fill(size + 2) else { return nil }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else if let length = Int(headers["content-length"] ?? "0") {
            guard fill(length) else { return nil }
            body.append(contentsOf: buffer[0..<length])
            buffer.removeFirst(length)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Reads the status line and header block of a response, leaving the body unread.
    func readHead() -> (status: Int, headers: [String: String])? {
        guard let headEnd = readUntil([13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers = [String: String]()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }

    /// Reads one chunk of a chunked body; nil at the last (empty) chunk or when the connection ended.
    func readChunk() -> Data? {
        guard let lineEnd = readUntil([13, 10]) else { return nil }
        let size = Int(String(decoding: buffer[0..<lineEnd], as: UTF8.self), radix: 16) ?? 0
        buffer.removeFirst(lineEnd + 2)
        guard size > 0 else {
            if fill(2) { buffer.removeFirst(2) }
            return nil
        }
        guard fill(size + 2) else { return nil }
        let chunk = Data(buffer[0..<size])
        buffer.removeFirst(size + 2)
        return chunk
    }

    /// Sends `POST path` with a JSON body and a bearer token.
    func postJSON(_ path: String, _ object: [String: Any], bearer: String) throws {
        let body = try JSONSerialization.data(withJSONObject: object)
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += "Authorization: Bearer \(bearer)\r\nContent-Length: \(body.count)\r\n\r\n"
        write(Array(head.utf8) + Array(body))
    }

    /// Sends one masked WebSocket frame (RFC 6455 §5.2), as a client must; `masked: false` sends
    /// a forbidden unmasked frame, and an all-zero `mask` leaves the payload bytes unchanged
    /// (cheap for very large frames).
    func writeFrame(opcode: UInt8, _ payload: [UInt8], final: Bool = true, masked: Bool = true, mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]) {
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(maskBit | 127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64($0 * 8)) }
        }
        guard masked else { return write(frame + payload) }
        frame += mask
        if mask == [0, 0, 0, 0] { return write(frame + payload) }
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        write(frame)
    }

    /// Reads frames until a close frame; returns its status code (nil when it had none), or nil
    /// when the connection ended without one.
    func readCloseCode() -> (code: UInt16?, reason: String)? {
        while let frame = readFrame() {
            guard frame.opcode == 8 else { continue }
            let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : nil
            return (code, String(decoding: frame.payload.dropFirst(2), as: UTF8.self))
        }
        return nil
    }

    /// Sends a text message, optionally split into two fragments.
    func writeText(_ text: String, fragmented: Bool = false) {
        let bytes = Array(text.utf8)
        guard fragmented, bytes.count > 1 else { return writeFrame(opcode: 1, bytes) }
        writeFrame(opcode: 1, Array(bytes.prefix(bytes.count / 2)), final: false)
        writeFrame(opcode: 0, Array(bytes.dropFirst(bytes.count / 2)))
    }

    /// Reads one server frame: opcode and payload; nil when the connection ended.
    func readFrame() -> (opcode: UInt8, payload: [UInt8])? {
        guard fill(2) else { return nil }
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard fill(4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard fill(10) else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            offset = 10
        }
        guard fill(offset + length) else { return nil }
        let payload = Array(buffer[offset..<offset + length])
        buffer.removeFirst(offset + length)
        return (opcode, payload)
    }

    /// Reads text frames until one whose JSON `type` is `type`, or one that ends a response
    /// (`response.completed`, `.incomplete`, `.failed`, `error`), inclusive; returns them as events.
    /// A test that waits for the wrong end so fails instead of waiting forever.
    func readEvents(until type: String) -> [SSEEvent] {
        var events = [SSEEvent]()
        while let frame = readFrame(), frame.opcode == 1 {
            guard let object = try? JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any] else { break }
            let name = object["type"] as? String ?? ""
            events.append(SSEEvent(name: name, data: object))
            if name == type || Self.responseEnds.contains(name) { break }
        }
        return events
    }

    private static let responseEnds: Set = ["response.completed", "response.incomplete", "response.failed", "error"]

    /// True when the server has closed the connection (reads EOF).
    func isClosedByServer() -> Bool {
        if !buffer.isEmpty { return false }
        return receiveMore() == false
    }

    private func readUntil(_ marker: [UInt8]) -> Int? {
        while true {
            if buffer.count >= marker.count {
                for index in 0...(buffer.count - marker.count) where Array(buffer[index..<index + marker.count]) == marker {
                    return index
                }
            }
            guard receiveMore() else { return nil }
        }
    }

    private func fill(_ count: Int) -> Bool {
        while buffer.count < count { guard receiveMore() else { return false } }
        return true
    }

    private func receiveMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65_536, 0) }
        if count < 0 { lastReadError = errno }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
