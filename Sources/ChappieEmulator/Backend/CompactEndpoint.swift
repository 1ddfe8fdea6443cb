import Foundation

/// `POST /backend-api/codex/responses/compact` (PROTOCOL §9): remote compaction. Plain JSON in and
/// out (no `store`/`stream`). As modelled by Codex's own test server, the answer keeps the request's
/// `user` and `developer` message items, drops assistant and tool items, and appends one
/// `{"type":"compaction","encrypted_content":…}` item: `{"output":[…]}`.
struct CompactEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one compaction request.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let rejection = await BackendAuthorization.reject(request, services: services) { return rejection }
        guard let body = JSONValue.parse(request.body), body.objectMembers != nil else {
            return .detail(400, Wire.invalidJSON)
        }
        guard let input = body[Wire.input]?.arrayValue else { return .detail(400, Wire.inputMustBeList) }
        guard let model = body[Wire.model]?.stringValue, !model.isEmpty else { return .detail(400, Wire.modelRequired) }
        if let unreadable = services.sealer.unreadableContentMessage(in: input) {
            return .json(400, ContentSealer.errorBody(message: unreadable))
        }
        var kept = input.filter { item in
            let role = item[Wire.role]?.stringValue
            let isMessage = (item[Wire.type]?.stringValue ?? Wire.message) == Wire.message
            return isMessage && (role == Wire.user || role == Wire.developer)
        }
        let summary = "compacted:\(input.count):" + RandomIdentifier.hex(16)
        kept.append([Wire.id: .string(RandomIdentifier.prefixed("cmp_")), Wire.type: .string(Wire.compaction), Wire.encryptedContent: .string(services.sealer.seal(summary))])
        return .json(200, [Wire.output: .array(kept)], headers: [(Wire.requestID, RandomIdentifier.prefixed("req_"))])
    }

    private enum Wire {
        static let input = "input"
        static let model = "model"
        static let role = "role"
        static let type = "type"
        static let message = "message"
        static let user = "user"
        static let developer = "developer"
        static let output = "output"
        static let compaction = "compaction"
        static let id = "id"
        static let encryptedContent = "encrypted_content"
        static let requestID = "x-request-id"
        static let invalidJSON = "Invalid request body: expected a JSON object"
        static let inputMustBeList = "Input must be a list"
        static let modelRequired = "Model is required"
    }
}
