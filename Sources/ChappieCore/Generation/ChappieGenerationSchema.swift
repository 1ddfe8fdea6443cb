/// The JSON Schema of a value the model generates: the shape of a typed reply
/// (``ChappieClient/send(_:generating:)-(String,_)``) or of a typed tool's arguments.
///
/// Build one with the static functions (``string(description:)``, ``object(_:description:)``,
/// ``array(of:description:)``, ``optional(_:)``, …), or let ``ChappieGenerable`` derive it from a
/// type. Every schema built this way meets the rules of the Responses API's strict structured
/// outputs by construction: every object property is listed in `required`, an optional value is a
/// union with `null`, and every object has `additionalProperties: false`.
///
/// ``init(jsonSchema:)`` takes a hand-written schema as is; the backend may refuse one that breaks
/// those rules (``ChappieGenerationError/schemaRejected(_:)``).
public struct ChappieGenerationSchema: Sendable, Hashable {
    /// One property of an object schema.
    public struct Property: Sendable, Hashable {
        /// The property's JSON name.
        public var name: String
        /// What the model is told the property holds; nil for none.
        public var description: String?
        /// The schema of its value.
        public var schema: ChappieGenerationSchema

        /// Creates a property named `name` whose value has `schema`.
        public init(_ name: String, _ schema: ChappieGenerationSchema, description: String? = nil) {
            self.name = name
            self.schema = schema
            self.description = description
        }
    }

    indirect enum Node: Sendable, Hashable {
        case string(choices: [String]?)
        case integer
        case number
        case boolean
        case array(Node)
        case object([Member])
        case nullable(Node)
        /// A hand-written schema, sent unchanged.
        case raw(ChappieJSONValue)
        /// A schema that could not be derived; sending it fails before anything goes out.
        case invalid(String)
    }

    struct Member: Sendable, Hashable {
        var name: String
        var description: String?
        var node: Node
    }

    let node: Node
    /// The schema's own description (the `description` keyword), if any.
    public let description: String?

    init(node: Node, description: String? = nil) {
        self.node = node
        self.description = description
    }

    /// A hand-written JSON Schema, sent as is (no strict-mode rules are added or checked).
    public init(jsonSchema: ChappieJSONValue) {
        self.init(node: .raw(jsonSchema))
    }

    /// A string.
    public static func string(description: String? = nil) -> ChappieGenerationSchema {
        ChappieGenerationSchema(node: .string(choices: nil), description: description)
    }

    /// A string that is one of `choices` (a JSON Schema `enum`).
    public static func string(oneOf choices: [String], description: String? = nil) -> ChappieGenerationSchema {
        ChappieGenerationSchema(node: .string(choices: choices), description: description)
    }

    /// A whole number.
    public static func integer(description: String? = nil) -> ChappieGenerationSchema {
        ChappieGenerationSchema(node: .integer, description: description)
    }

    /// Any number.
    public static func number(description: String? = nil) -> ChappieGenerationSchema {
        ChappieGenerationSchema(node: .number, description: description)
    }

    /// `true` or `false`.
    public static func boolean(description: String? = nil) -> ChappieGenerationSchema {
        ChappieGenerationSchema(node: .boolean, description: description)
    }

    /// An array whose elements have `element`'s schema.
    public static func array(of element: ChappieGenerationSchema, description: String? = nil) -> ChappieGenerationSchema {
        ChappieGenerationSchema(node: .array(element.node), description: description)
    }

    /// An object with exactly these properties, in this order, all required and nothing else.
    /// A repeated name keeps its first property.
    public static func object(_ properties: [Property], description: String? = nil) -> ChappieGenerationSchema {
        var seen = Set<String>()
        let members = properties.filter { seen.insert($0.name).inserted }.map {
            Member(name: $0.name, description: $0.description ?? $0.schema.description, node: $0.schema.node)
        }
        return ChappieGenerationSchema(node: .object(members), description: description)
    }

    /// `wrapped` or `null` (strict mode has no optional properties: an optional one is required
    /// and may be null).
    public static func optional(_ wrapped: ChappieGenerationSchema) -> ChappieGenerationSchema {
        if case .nullable = wrapped.node { return wrapped }
        return ChappieGenerationSchema(node: .nullable(wrapped.node), description: wrapped.description)
    }

    /// Why the schema cannot be used, when it was derived from a type it cannot describe (a
    /// dictionary, a recursive type, an enum that is not ``ChappieGenerable``); nil when usable.
    public var invalidReason: String? { Self.invalidReason(node) }

    /// The JSON Schema, as sent in `text.format.schema` or a tool's `parameters`.
    public var jsonSchema: ChappieJSONValue {
        var schema = Self.json(node)
        if let description, case .object(var members) = schema {
            members[Wire.description] = .string(description)
            schema = .object(members)
        }
        return schema
    }

    private static func invalidReason(_ node: Node) -> String? {
        switch node {
        case .invalid(let reason): reason
        case .array(let element), .nullable(let element): invalidReason(element)
        case .object(let members): members.lazy.compactMap { invalidReason($0.node) }.first
        default: nil
        }
    }

    private static func json(_ node: Node) -> ChappieJSONValue {
        switch node {
        case .string(let choices):
            var members: [String: ChappieJSONValue] = [Wire.type: .string(Wire.string)]
            if let choices { members[Wire.enum] = .array(choices.map(ChappieJSONValue.string)) }
            return .object(members)
        case .integer: return [Wire.type: .string(Wire.integer)]
        case .number: return [Wire.type: .string(Wire.number)]
        case .boolean: return [Wire.type: .string(Wire.boolean)]
        case .array(let element): return [Wire.type: .string(Wire.array), Wire.items: json(element)]
        case .object(let members):
            var properties: [String: ChappieJSONValue] = [:]
            for member in members {
                var property = json(member.node)
                if let description = member.description, case .object(var fields) = property {
                    fields[Wire.description] = .string(description)
                    property = .object(fields)
                }
                properties[member.name] = property
            }
            return [Wire.type: .string(Wire.object), Wire.properties: .object(properties),
                    Wire.required: .array(members.map { .string($0.name) }), Wire.additionalProperties: false]
        case .nullable(let wrapped):
            // A primitive takes a type list; a container (or an enum of strings) a union.
            var schema = json(wrapped)
            if case .object(var fields) = schema, let type = fields[Wire.type]?.stringValue, fields[Wire.enum] == nil,
               type != Wire.object, type != Wire.array {
                fields[Wire.type] = [.string(type), .string(Wire.null)]
                schema = .object(fields)
                return schema
            }
            return [Wire.anyOf: [schema, [Wire.type: .string(Wire.null)]]]
        case .raw(let value): return value
        case .invalid: return [:]
        }
    }

    /// JSON Schema keywords (draft 2020-12 as the Responses API's structured outputs take it).
    enum Wire {
        static let type = "type"
        static let string = "string"
        static let integer = "integer"
        static let number = "number"
        static let boolean = "boolean"
        static let array = "array"
        static let object = "object"
        static let null = "null"
        static let items = "items"
        static let properties = "properties"
        static let required = "required"
        static let additionalProperties = "additionalProperties"
        static let anyOf = "anyOf"
        static let `enum` = "enum"
        static let description = "description"
    }
}
