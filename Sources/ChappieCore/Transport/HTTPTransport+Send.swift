import ChappieTransport
import Foundation

extension HTTPTransport {
    /// Sends `request` and reads the whole body, failing past `maximumBytes`, and with
    /// ``TransportError/deadlineExceeded(_:)`` once ``HTTPRequest/deadline`` has passed.
    /// Throws ``TransportError`` or `CancellationError`.
    func send(_ request: HTTPRequest, maximumBytes: Int = 8 << 20) async throws -> HTTPResponse {
        try await HTTPDeadline.run(request.deadline) {
            let (head, body) = try await stream(request)
            return HTTPResponse(head: head, body: try await body.collect(maximumBytes: maximumBytes))
        }
    }
}
