import Foundation

/// What the model has generated so far of a typed reply, made whole: open strings end where the
/// text stops, open arrays and objects close after their last finished member, and a member
/// whose name or value has only begun is left out. Streamed by ``ChappieClient/stream(_:generating:)-(String,_)``.
///
/// Making one costs the nesting depth of the reply, not its length; reading ``json`` builds the
/// value and costs the size of the prefix, so read it when you show it, not on every event of a
/// very long reply.
public struct ChappiePartialGeneration: Sendable {
    let frames: [PartialFrame]
    let open: ChappieJSONValue.PartialScalar
    /// For a type whose schema is not an object: the member the value is wrapped in.
    var unwrappingMember: String?

    /// True when the JSON value is whole (the reply may still have trailing whitespace to come).
    public let isComplete: Bool

    init(frames: [PartialFrame], open: ChappieJSONValue.PartialScalar, isComplete: Bool, unwrappingMember: String? = nil) {
        self.frames = frames
        self.open = open
        self.isComplete = isComplete
        self.unwrappingMember = unwrappingMember
    }

    /// The value so far; nil before its first character.
    public var json: ChappieJSONValue? {
        var partial: ChappieJSONValue? = switch open {
        case .none: nil
        case .value(let value): value
        case .string(let chunks): .string(chunks?.elementsInOrder.joined() ?? "")
        }
        for frame in frames.reversed() {
            partial = frame.value(adding: partial)
        }
        if let unwrappingMember { return partial?[unwrappingMember] }
        return partial
    }

    /// Decodes the value so far as `type`, usually a twin of the generated type whose properties
    /// are all optional (so a member not generated yet decodes as nil). Costs the size of the
    /// prefix. Throws `DecodingError` when the value so far does not fit `type`.
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        let data = try JSONEncoder().encode(json ?? .null)
        return try JSONDecoder().decode(type, from: data)
    }
}
