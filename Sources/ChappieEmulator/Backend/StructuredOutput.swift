/// Structured outputs (`text.format = {"type":"json_schema","strict":true,"schema":…,"name":…}`,
/// PROTOCOL §4.3): the strict-mode rules the emulator enforces on a schema, as the Responses API
/// does (an object at the root; every object with `additionalProperties: false` and every
/// property in `required`; only the types strict mode knows), and the conforming JSON value its
/// scripted model answers with.
enum StructuredOutput {
    /// Why the backend refuses `format`, in the API's words, or nil when it is accepted (or is not
    /// a `json_schema` format).
    static func rejection(of format: JSONValue) -> String? {
        guard format[Wire.type]?.stringValue == Wire.jsonSchema else { return nil }
        let name = format[Wire.name]?.stringValue ?? ""
        guard !name.isEmpty, name.count <= 64, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic
            || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }) else {
            return "Invalid 'text.format.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
        }
        guard let schema = format[Wire.schema], schema.objectMembers != nil else {
            return "Invalid schema for response_format '\(name)': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"None\"'."
        }
        guard schema[Wire.type]?.stringValue == Wire.object else {
            return "Invalid schema for response_format '\(name)': schema must be a JSON Schema of 'type: \"object\"'."
        }
        guard format[Wire.strict]?.boolValue == true else { return nil }
        if let problem = strictProblem(schema, context: []) { return "Invalid schema for response_format '\(name)': \(problem)" }
        return nil
    }

    /// Why the backend refuses a `function` tool declared with `"strict": true`, or nil.
    static func rejection(ofTool tool: JSONValue) -> String? {
        guard tool[Wire.type]?.stringValue == "function", tool[Wire.strict]?.boolValue == true else { return nil }
        let name = tool[Wire.name]?.stringValue ?? ""
        guard let parameters = tool["parameters"], parameters[Wire.type]?.stringValue == Wire.object else {
            return "Invalid schema for function '\(name)': schema must be a JSON Schema of 'type: \"object\"'."
        }
        return strictProblem(parameters, context: []).map { "Invalid schema for function '\(name)': \($0)" }
    }

    /// The first strict-mode violation inside `schema`, located as the API locates it.
    private static func strictProblem(_ schema: JSONValue, context: [String]) -> String? {
        let here = "In context=(" + context.map { "'\($0)'" }.joined(separator: ", ") + (context.count == 1 ? ",)" : ")")
        if let alternatives = schema[Wire.anyOf]?.arrayValue {
            for (index, alternative) in alternatives.enumerated() {
                if let problem = strictProblem(alternative, context: context + [Wire.anyOf, String(index)]) { return problem }
            }
            return nil
        }
        let types: [String]
        if let type = schema[Wire.type]?.stringValue {
            types = [type]
        } else if let list = schema[Wire.type]?.arrayValue?.compactMap(\.stringValue), !list.isEmpty {
            types = list
        } else if schema[Wire.enum] != nil || schema["$ref"] != nil || schema["const"] != nil {
            return nil
        } else {
            return "\(here), schema must have a 'type' key."
        }
        for type in types where !Wire.knownTypes.contains(type) {
            return "\(here), '\(type)' is not valid under any of the given schemas."
        }
        if types.contains(Wire.object) {
            let properties = schema[Wire.properties]?.objectMembers ?? []
            guard schema[Wire.additionalProperties]?.boolValue == false else {
                return "\(here), 'additionalProperties' is required to be supplied and to be false."
            }
            let required = Set(schema[Wire.required]?.arrayValue?.compactMap(\.stringValue) ?? [])
            if let missing = properties.first(where: { !required.contains($0.0) }) {
                return "\(here), 'required' is required to be supplied and to be an array including every key in properties. Missing '\(missing.0)'."
            }
            for (name, property) in properties {
                if let problem = strictProblem(property, context: context + [Wire.properties, name]) { return problem }
            }
        }
        if types.contains(Wire.array), let items = schema[Wire.items] {
            return strictProblem(items, context: context + [Wire.items])
        }
        return nil
    }

    /// A value that follows `schema`: strings echo `seed` (cut to 40 characters), enums take their
    /// first case, numbers are 1, arrays hold one element, nullable values take their non-null
    /// form, objects list every property in schema order.
    static func sample(for schema: JSONValue, seed: String, depth: Int = 0) -> JSONValue {
        if let choices = schema[Wire.enum]?.arrayValue, let first = choices.first { return first }
        if let constant = schema["const"] { return constant }
        if let alternatives = schema[Wire.anyOf]?.arrayValue {
            let preferred = alternatives.first { $0[Wire.type]?.stringValue != Wire.null } ?? alternatives.first ?? .null
            return sample(for: preferred, seed: seed, depth: depth)
        }
        let type = schema[Wire.type]?.stringValue
            ?? schema[Wire.type]?.arrayValue?.compactMap(\.stringValue).first { $0 != Wire.null }
            ?? Wire.null
        guard depth < 12 else { return .null }
        switch type {
        case Wire.object:
            let properties = schema[Wire.properties]?.objectMembers ?? []
            return .object(properties.map { ($0.0, sample(for: $0.1, seed: seed, depth: depth + 1)) })
        case Wire.array:
            return .array(schema[Wire.items].map { [sample(for: $0, seed: seed, depth: depth + 1)] } ?? [])
        case Wire.string: return .string(String(seed.prefix(40)))
        case Wire.integer: return .int(1)
        case Wire.number: return .double(1.5)
        case Wire.boolean: return .bool(true)
        default: return .null
        }
    }

    private enum Wire {
        static let type = "type"
        static let name = "name"
        static let schema = "schema"
        static let strict = "strict"
        static let jsonSchema = "json_schema"
        static let object = "object"
        static let array = "array"
        static let string = "string"
        static let integer = "integer"
        static let number = "number"
        static let boolean = "boolean"
        static let null = "null"
        static let properties = "properties"
        static let required = "required"
        static let additionalProperties = "additionalProperties"
        static let items = "items"
        static let anyOf = "anyOf"
        static let `enum` = "enum"
        static let knownTypes: Set<String> = ["object", "array", "string", "integer", "number", "boolean", "null"]
    }
}
