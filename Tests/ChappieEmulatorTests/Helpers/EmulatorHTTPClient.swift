import ChappieEmulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A buffered HTTP exchange with the emulator over real loopback HTTP (URLSession).
struct HTTPExchange: Sendable {
    /// Status code.
    var status: Int
    /// Header fields with lower-cased names.
    var headers: [String: String]
    /// Raw body.
    var body: Data

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object, or an empty dictionary.
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }

    /// `detail` of a FastAPI error body.
    var detail: String? { json["detail"] as? String }

    /// The SSE events of a streamed body, in order.
    var events: [SSEEvent] { SSEEvent.parse(body) }
}

/// One `event:`/`data:` pair of a `text/event-stream` body (WHATWG HTML §9.2), data parsed as JSON.
struct SSEEvent: @unchecked Sendable {
    // Unchecked: `data` holds immutable Foundation JSON values that are only read.
    /// The `event:` field.
    var name: String
    /// The `data:` JSON object.
    var data: [String: Any]
    /// `data["type"]`.
    var type: String { data["type"] as? String ?? "" }

    /// Splits a complete SSE body into events.
    static func parse(_ body: Data) -> [SSEEvent] {
        String(decoding: body, as: UTF8.self).components(separatedBy: "\n\n").compactMap { block in
            var name = ""
            var data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data += line.dropFirst(6) }
            }
            guard !data.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]
            else { return nil }
            return SSEEvent(name: name, data: object)
        }
    }
}

/// Sends requests to an emulator with a fresh ephemeral URLSession.
struct EmulatorHTTPClient: Sendable {
    let emulator: ChappieEmulator

    /// Sends `method` to `path` (relative to the issuer base URL, may include a query).
    func send(
        _ method: String,
        _ path: String,
        headers: [String: String] = [:],
        body: Data? = nil
    ) async throws -> HTTPExchange {
        var request = URLRequest(url: URL(string: emulator.baseURL.absoluteString + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields = [String: String]()
        for (key, value) in http.allHeaderFields {
            fields[String(describing: key).lowercased()] = String(describing: value)
        }
        return HTTPExchange(status: http.statusCode, headers: fields, body: data)
    }

    /// POSTs a JSON object.
    func postJSON(_ path: String, _ object: [String: Any], bearer: String? = nil, headers: [String: String] = [:]) async throws
        -> HTTPExchange
    {
        var fields = headers
        fields["Content-Type"] = "application/json"
        if let bearer { fields["Authorization"] = "Bearer \(bearer)" }
        return try await send("POST", path, headers: fields, body: try JSONSerialization.data(withJSONObject: object))
    }

    /// POSTs form fields (`application/x-www-form-urlencoded`).
    func postForm(_ path: String, _ fields: [(String, String)]) async throws -> HTTPExchange {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let body = fields.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
        return try await send(
            "POST", path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8)
        )
    }

    /// GETs `path` with an optional bearer.
    func get(_ path: String, bearer: String? = nil) async throws -> HTTPExchange {
        try await send("GET", path, headers: bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    /// A valid `/responses` body (instructions + one user message), merged with `overrides`;
    /// keys listed in `removing` are dropped.
    static func responsesBody(
        _ userText: String = "ping",
        overrides: [String: Any] = [:],
        removing: [String] = []
    ) -> [String: Any] {
        var body: [String: Any] = [
            "model": "gpt-5.5",
            "instructions": "You are a test.",
            "input": [["type": "message", "role": "user", "content": [["type": "input_text", "text": userText]]]],
            "store": false,
            "stream": true,
        ]
        for (key, value) in overrides { body[key] = value }
        for key in removing { body.removeValue(forKey: key) }
        return body
    }
}

/// Starts an emulator, runs `body`, and always shuts it down.
func withEmulator<T: Sendable>(
    _ configuration: ChappieEmulator.Configuration = .init(),
    _ body: (ChappieEmulator, EmulatorHTTPClient) async throws -> T
) async throws -> T {
    try await ChappieEmulator.with(configuration) { emulator in
        try await body(emulator, EmulatorHTTPClient(emulator: emulator))
    }
}

/// Decodes the payload of a JWT.
func jwtPayload(_ token: String) -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { return [:] }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64) else { return [:] }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
}
