// libFuzzer entry point for the emulator's readers of network input, compiled together with the
// ChappieEmulator sources by scripts/fuzz (`swiftc -sanitize=fuzzer,address`).
// CHAPPIE_FUZZ_TARGET picks the target:
// `http-request` (the HTTP/1.1 request reader, fed the input through a socket pair),
// `websocket` (the WebSocket frame reader, the input being what a client sent after the handshake),
// `json` (the JSON parser every request body goes through).
// A target that finds a broken promise (not just a crash) stops with fatalError.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

private let target = ProcessInfo.processInfo.environment["CHAPPIE_FUZZ_TARGET"] ?? "http-request"

/// A connected socket pair whose reading end holds `bytes` followed by end of stream: what a
/// client that sent `bytes` and then half-closed looks like. Returns the reading end and the peer.
private func socketHolding(_ bytes: [UInt8]) -> (reader: Int32, peer: Int32) {
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fatalError("socketpair failed") }
    var size = Int32(1 << 20)
    setsockopt(pair[0], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { send(pair[1], $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
        guard written > 0 else { fatalError("could not queue the input") }
        offset += written
    }
    shutdown(pair[1], Int32(SHUT_WR))
    return (pair[0], pair[1])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func emulatorFuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    switch target {
    case "websocket":
        let (reader, peer) = socketHolding([])
        defer { close(reader); close(peer) }
        let connection = WebSocketConnection(fd: reader, leftover: bytes)
        var messages = 0
        while case let incoming = connection.receive(), incoming != .closed {
            messages += 1
            if messages > bytes.count + 1 { fatalError("more messages than input bytes") }
        }
    case "json":
        var parser = JSONParser(bytes: bytes)
        if let value = parser.parseDocument() {
            // What parses serializes to JSON that parses to the same value.
            guard let again = JSONValue.parse(value.data), again == value else { fatalError("JSON round trip changed the value") }
        }
    default:
        let (reader, peer) = socketHolding(bytes)
        defer { close(reader); close(peer) }
        let requests = HTTPRequestReader(fd: reader)
        var served = 0
        reading: while true {
            switch requests.next(sendInterim: { _ in }) {
            case .request(let request):
                served += 1
                if request.body.count > HTTPRequestReader.maximumBodyBytes { fatalError("body over the cap") }
                if served > bytes.count { fatalError("more requests than input bytes") }
            case .closed, .rejected:
                break reading
            }
        }
    }
    return 0
}
