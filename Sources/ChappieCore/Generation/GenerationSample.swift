/// The smallest JSON value that follows a schema: empty strings (or the first enum case), zeros,
/// `false`, empty arrays, `null` for nullable values, every object property present. Schema
/// derivation decodes a nested ``ChappieGenerable`` type's placeholder from it.
enum GenerationSample {
    /// A value conforming to `node`.
    static func value(for node: ChappieGenerationSchema.Node) -> ChappieJSONValue {
        switch node {
        case .string(let choices): .string(choices?.first ?? "")
        case .integer: .integer(0)
        case .number: .number(0)
        case .boolean: .bool(false)
        case .array: .array([])
        case .object(let members): .object(Dictionary(members.map { ($0.name, value(for: $0.node)) }, uniquingKeysWith: { first, _ in first }))
        case .nullable: .null
        case .raw, .invalid: .null
        }
    }
}
