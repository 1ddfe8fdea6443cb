import Foundation
import Glibc

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

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(fd) }

    /// Sends raw bytes.
    func write(_ text: String) { write(Array(text.utf8)) }

    /// Sends raw bytes.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBufferPointer { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Closes the connection now.
    func closeNow() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// A parsed response.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// Reads one response (Content-Length or chunked body); nil when the server closed first.
    func readResponse() -> Response? {
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
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
