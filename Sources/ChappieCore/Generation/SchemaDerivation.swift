import Foundation

/// Derives a ``ChappieGenerationSchema`` from a `Decodable` type without a macro: the type is
/// decoded once by a recording `Decoder` that answers every request with a placeholder and notes
/// what was asked for (the keys of a keyed container in order, `decodeIfPresent` as nullable, the
/// element of an unkeyed container, the primitive of a single value). A nested
/// ``ChappieGenerable`` type contributes its own schema, and its placeholder is decoded from a
/// sample JSON value of that schema (so string enums get one of their cases).
enum SchemaDerivation {
    /// The schema of `type`, or one whose ``ChappieGenerationSchema/invalidReason`` says why not.
    static func schema<T: Decodable>(of type: T.Type) -> ChappieGenerationSchema {
        do {
            // A nested type's default schema is asked for with the type already marked.
            if inProgress.last == ObjectIdentifier(type) { return ChappieGenerationSchema(node: try Recorder.structure(of: type).node) }
            return ChappieGenerationSchema(node: try derivingStructure(of: type) { try Recorder.structure(of: type).node })
        } catch let failure as Failure {
            return ChappieGenerationSchema(node: .invalid(failure.reason))
        } catch DecodingError.dataCorrupted(let context) {
            // A value that takes only some inputs refused the placeholder: an Int-backed enum, say.
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return ChappieGenerationSchema(node: .invalid(
                "cannot derive a schema for \(name(of: type))" + (path.isEmpty ? "" : " at \(path)") + " (\(context.debugDescription))"
                    + ": that value accepts only particular inputs (an enum with Int raw values, say); make it a String-backed "
                    + "CaseIterable enum, or give its type a schema of its own (ChappieGenerable with a ChappieGenerationSchema)"))
        } catch {
            return ChappieGenerationSchema(node: .invalid("cannot derive a schema for \(type): \(error)"))
        }
    }

    /// `type`'s name (without module or generic arguments) limited to `[A-Za-z0-9_-]`, 64 characters.
    static func name(of type: Any.Type) -> String {
        let base = String(describing: type).prefix { $0 != "<" }
        let cleaned = String(base.unicodeScalars.map { scalar -> Character in
            scalar.properties.isAlphabetic && scalar.isASCII || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-"
                ? Character(scalar) : "_"
        }.prefix(64))
        return cleaned.isEmpty ? "output" : cleaned
    }

    /// The types being derived on this task, outermost first (to catch recursion).
    static var inProgress: [ObjectIdentifier] { inProgressTypes.get() }

    /// A `let` rather than `@TaskLocal static var`, which the older Apple SDK interfaces flag as a
    /// global variable that is not concurrency-safe.
    private static let inProgressTypes = TaskLocal<[ObjectIdentifier]>(wrappedValue: [])

    /// Runs `body` with `type` marked in progress; throws for a type already in progress.
    static func derivingStructure<T>(of type: Any.Type, _ body: () throws -> T) throws -> T {
        let id = ObjectIdentifier(type)
        if inProgress.contains(id) { throw Failure(reason: "\(type) is recursive, which a strict schema cannot describe") }
        guard inProgress.count < maximumDepth else { throw Failure(reason: "\(type) nests more than \(maximumDepth) levels") }
        return try inProgressTypes.withValue(inProgress + [id], operation: body)
    }

    /// Deepest nesting of types a derived schema may have (the API allows 10 levels of objects).
    static let maximumDepth = 10

    /// A reason a schema cannot be derived.
    struct Failure: Error {
        var reason: String
    }
}

/// Optional, seen through a protocol so the recorder can tell it apart and build a `nil`.
private protocol OptionalRecording {
    static var wrappedDecodable: any Decodable.Type { get }
    static var noValue: Self { get }
}

extension Optional: OptionalRecording where Wrapped: Decodable {
    static var wrappedDecodable: any Decodable.Type { Wrapped.self }
    static var noValue: Self { nil }
}

/// What a recorded value turned out to be; containers fill in as the type decodes them.
private final class Shape {
    enum Kind {
        case unknown
        case value(ChappieGenerationSchema.Node)
        case object([(name: String, shape: Shape)])
        case array(Shape?)
        case dictionary
    }

    var kind: Kind = .unknown

    var node: ChappieGenerationSchema.Node {
        get throws {
            switch kind {
            case .unknown: throw SchemaDerivation.Failure(reason: "a value decoded nothing")
            case .value(let node): return node
            case .object(let members):
                return .object(try members.map { ChappieGenerationSchema.Member(name: $0.name, description: nil, node: try $0.shape.node) })
            case .array(let element):
                guard let element else { throw SchemaDerivation.Failure(reason: "an array decoded no element") }
                return .array(try element.node)
            case .dictionary:
                throw SchemaDerivation.Failure(reason: "dictionaries have no strict schema; use an array of key-value structs")
            }
        }
    }

    func add(_ name: String, _ shape: Shape) {
        if case .object(var members) = kind {
            guard !members.contains(where: { $0.name == name }) else { return }
            members.append((name, shape))
            kind = .object(members)
        } else {
            kind = .object([(name, shape)])
        }
    }
}

/// The recording decoder and its containers.
private struct Recorder {
    /// Records `type`, returning its shape and a placeholder value.
    static func record<T: Decodable>(_ type: T.Type) throws -> (shape: Shape, value: T) {
        let shape = Shape()
        if let primitive = primitive(type) {
            shape.kind = .value(primitive.node)
            return (shape, primitive.value as! T)
        }
        if let optional = type as? any OptionalRecording.Type {
            let wrapped = try structure(ofAny: optional.wrappedDecodable)
            shape.kind = .value(.nullable(try wrapped.node))
            return (shape, optional.noValue as! T)
        }
        if let generable = type as? any ChappieGenerable.Type {
            let schema = try SchemaDerivation.derivingStructure(of: type) { generable.generationSchema }
            if let reason = schema.invalidReason { throw SchemaDerivation.Failure(reason: reason) }
            shape.kind = .value(schema.node)
            let sample = GenerationSample.value(for: schema.node)
            let value = try JSONDecoder().decode(T.self, from: Data(sample.jsonString.utf8))
            return (shape, value)
        }
        return try SchemaDerivation.derivingStructure(of: type) {
            let decoder = RecordingDecoder(shape: shape)
            return (shape, try T(from: decoder))
        }
    }

    /// The shape of `type`, decoded with a recording decoder (the type itself, not its schema).
    static func structure<T: Decodable>(of type: T.Type) throws -> Shape {
        if primitive(type) != nil || type is any OptionalRecording.Type { return try record(type).shape }
        let shape = Shape()
        _ = try T(from: RecordingDecoder(shape: shape))
        return shape
    }

    private static func structure(ofAny type: any Decodable.Type) throws -> Shape {
        func open<T: Decodable>(_ type: T.Type) throws -> Shape { try record(type).shape }
        return try open(type)
    }

    private static func primitive<T>(_ type: T.Type) -> (node: ChappieGenerationSchema.Node, value: Any)? {
        switch type {
        case is String.Type: (.string(choices: nil), "")
        case is Bool.Type: (.boolean, false)
        case is Int.Type: (.integer, 0)
        case is Int8.Type: (.integer, Int8(0))
        case is Int16.Type: (.integer, Int16(0))
        case is Int32.Type: (.integer, Int32(0))
        case is Int64.Type: (.integer, Int64(0))
        case is UInt.Type: (.integer, UInt(0))
        case is UInt8.Type: (.integer, UInt8(0))
        case is UInt16.Type: (.integer, UInt16(0))
        case is UInt32.Type: (.integer, UInt32(0))
        case is UInt64.Type: (.integer, UInt64(0))
        case is Double.Type: (.number, 0.0)
        case is Float.Type: (.number, Float(0))
        case is Decimal.Type: (.number, Decimal(0))
        case is URL.Type: (.string(choices: nil), URL(fileURLWithPath: "/"))
        case is UUID.Type: (.string(choices: nil), UUID())
        case is Date.Type: (.invalid("Date has no single JSON form; use a String (for example ISO 8601)"), Date(timeIntervalSince1970: 0))
        case is Data.Type: (.invalid("Data has no single JSON form; use a base64 String"), Data())
        default: nil
        }
    }
}

private struct RecordingDecoder: Decoder {
    let shape: Shape
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if case .unknown = shape.kind { shape.kind = .object([]) }
        return KeyedDecodingContainer(KeyedRecorder<Key>(shape: shape))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedRecorder(shape: shape)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueRecorder(shape: shape)
    }
}

private struct KeyedRecorder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let shape: Shape
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        shape.kind = .dictionary
        return []
    }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(type, key) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(type, key) }

    private func member<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        let (member, value) = try Recorder.record(type)
        shape.add(key.stringValue, member)
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let (member, _) = try Recorder.record(type)
        let nullable = Shape()
        nullable.kind = .value(.nullable(try member.node))
        shape.add(key.stringValue, nullable)
        return nil
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(Wrapped<String>.self, key)?.value }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(Wrapped<Bool>.self, key)?.value }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(Wrapped<Int>.self, key)?.value }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(Wrapped<Double>.self, key)?.value }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeIfPresent(Wrapped<Float>.self, key)?.value }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(Wrapped<Int64>.self, key)?.value }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeIfPresent(Wrapped<Int32>.self, key)?.value }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeIfPresent(Wrapped<UInt>.self, key)?.value }

    /// Routes a primitive `decodeIfPresent` through the generic one.
    private struct Wrapped<Value: Decodable>: Decodable {
        var value: Value
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Value.self) }
    }

    private func decodeIfPresent<Value: Decodable>(_ type: Wrapped<Value>.Type, _ key: Key) throws -> Wrapped<Value>? {
        _ = try decodeIfPresent(Value.self, forKey: key)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = Shape()
        nested.kind = .object([])
        shape.add(key.stringValue, nested)
        return KeyedDecodingContainer(KeyedRecorder<NestedKey>(shape: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = Shape()
        shape.add(key.stringValue, nested)
        return UnkeyedRecorder(shape: nested)
    }

    func superDecoder() throws -> any Decoder {
        throw SchemaDerivation.Failure(reason: "superDecoder() cannot be derived; write the schema with ChappieGenerationSchema")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let nested = Shape()
        shape.add(key.stringValue, nested)
        return RecordingDecoder(shape: nested)
    }
}

private struct UnkeyedRecorder: UnkeyedDecodingContainer {
    let shape: Shape
    var codingPath: [any CodingKey] { [] }
    var count: Int? { nil }
    private(set) var currentIndex = 0
    var isAtEnd: Bool { currentIndex > 0 }

    init(shape: Shape) {
        self.shape = shape
        if case .unknown = shape.kind { shape.kind = .array(nil) }
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(type) }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try element(type) }
    mutating func decode(_ type: String.Type) throws -> String { try element(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try element(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try element(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try element(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try element(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try element(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try element(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try element(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try element(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try element(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try element(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try element(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try element(type) }

    private mutating func element<T: Decodable>(_ type: T.Type) throws -> T {
        let (element, value) = try Recorder.record(type)
        if currentIndex == 0 { shape.kind = .array(element) }
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw SchemaDerivation.Failure(reason: "a nested keyed container in an array cannot be derived; write the schema")
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SchemaDerivation.Failure(reason: "a nested array container cannot be derived; write the schema")
    }

    mutating func superDecoder() throws -> any Decoder {
        throw SchemaDerivation.Failure(reason: "superDecoder() cannot be derived; write the schema")
    }
}

private struct SingleValueRecorder: SingleValueDecodingContainer {
    let shape: Shape
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }

    func decode(_ type: Bool.Type) throws -> Bool { try value(type) }
    func decode(_ type: String.Type) throws -> String { try value(type) }
    func decode(_ type: Double.Type) throws -> Double { try value(type) }
    func decode(_ type: Float.Type) throws -> Float { try value(type) }
    func decode(_ type: Int.Type) throws -> Int { try value(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try value(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try value(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try value(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try value(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try value(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try value(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try value(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try value(type) }

    private func value<T: Decodable>(_ type: T.Type) throws -> T {
        let (inner, value) = try Recorder.record(type)
        shape.kind = inner.kind
        return value
    }
}
