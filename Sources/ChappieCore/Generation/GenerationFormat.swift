import Foundation

/// The `text.format` of a typed request and the decoding of its reply (PROTOCOL §4.3, as the
/// Codex CLI sends it for `--output-schema`: `{"type":"json_schema","strict":true,"schema":…,"name":…}`,
/// `codex-rs/codex-api/src/common.rs`).
///
/// Strict structured outputs need an object at the root, so a type whose schema is not an object
/// (an array, a string enum) is sent wrapped as `{"value": …}` and unwrapped on the way back.
struct GenerationFormat<Value: ChappieGenerable>: Sendable {
    /// The schema as sent.
    let schema: ChappieJSONValue
    /// The format's name.
    let name: String
    /// The member the value is wrapped in, for a schema that is not an object.
    let wrappingMember: String?

    /// The format of `Value`. Throws ``ChappieGenerationError/invalidSchema(_:)``.
    init() throws {
        let generation = Value.generationSchema
        if let reason = generation.invalidReason { throw ChappieGenerationError.invalidSchema(reason) }
        let json = generation.jsonSchema
        if json[Wire.type]?.stringValue == Wire.object {
            schema = json
            wrappingMember = nil
        } else {
            schema = ChappieGenerationSchema.object([.init(Wire.value, generation)]).jsonSchema
            wrappingMember = Wire.value
        }
        name = Value.generationName
    }

    /// The `text.format` object.
    var json: ChappieJSONValue {
        [Wire.type: .string(Wire.jsonSchema), Wire.strict: true, Wire.schema: schema, Wire.name: .string(name)]
    }

    /// The reply decoded as `Value`. Throws ``ChappieGenerationError/truncatedReply(rawText:)`` or
    /// ``ChappieGenerationError/undecodableReply(reason:rawText:)``.
    func decode(_ text: String) throws -> Value {
        do {
            let data = Data(text.utf8)
            if wrappingMember != nil { return try JSONDecoder().decode(Wrapped.self, from: data).value }
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            var parser = PartialJSONParser()
            parser.feed(text)
            switch parser.status {
            case .incomplete where !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty:
                throw ChappieGenerationError.truncatedReply(rawText: ChappieGenerationError.clean(text))
            case .invalid(let reason):
                throw ChappieGenerationError.undecodableReply(reason: "not JSON: \(reason)", rawText: ChappieGenerationError.clean(text))
            default:
                throw ChappieGenerationError.undecodableReply(reason: Self.reason(error), rawText: ChappieGenerationError.clean(text))
            }
        }
    }

    /// A snapshot as the app sees it (unwrapped).
    func present(_ snapshot: ChappiePartialGeneration) -> ChappiePartialGeneration {
        var snapshot = snapshot
        snapshot.unwrappingMember = wrappingMember
        return snapshot
    }

    /// The error for a refused request: a 400 naming the schema becomes
    /// ``ChappieGenerationError/schemaRejected(_:)``; anything else is returned unchanged.
    static func mapRefusal(_ error: any Error) -> any Error {
        if case ChappieClientError.invalidRequest(let message) = error, message.range(of: Wire.schema, options: .caseInsensitive) != nil {
            return ChappieGenerationError.schemaRejected(message)
        }
        return error
    }

    /// Says which key or value did not fit, without the server's or the reply's text.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "the value does not fit the type" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the value" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)) has no member \(key.stringValue)"
        case .typeMismatch(let type, let context): return "\(path(context)) is not \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is null, expected \(type)"
        case .dataCorrupted(let context): return "\(path(context)) is malformed"
        @unknown default: return "the value does not fit the type"
        }
    }

    private struct Wrapped: Decodable {
        var value: Value
    }

}

/// The `text.format` vocabulary of ``GenerationFormat``.
private enum Wire {
        static let type = "type"
        static let object = "object"
        static let value = "value"
        static let jsonSchema = "json_schema"
        static let strict = "strict"
        static let schema = "schema"
        static let name = "name"
}
