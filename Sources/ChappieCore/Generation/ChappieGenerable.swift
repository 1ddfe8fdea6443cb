/// A type the model can generate: a typed reply of ``ChappieClient/send(_:generating:)-(String,_)`` and
/// ``ChappieClient/stream(_:generating:)-(String,_)``, or the arguments of a typed tool.
///
/// A plain `Decodable` struct needs nothing more than the conformance: its schema is derived
/// from its `Decodable` implementation, with properties in declaration order, `Optional`
/// properties as nullable values, arrays, nested structs and ``ChappieGenerable`` enums:
///
/// ```swift
/// struct Recipe: ChappieGenerable {
///     enum Course: String, CaseIterable, ChappieGenerable { case starter, main, dessert }
///     var title: String
///     var course: Course
///     var minutes: Int
///     var ingredients: [String]
///     var wine: String?
/// }
/// ```
///
/// A string-backed `CaseIterable` enum conforms the same way and becomes a string `enum` of its
/// raw values. To describe properties to the model, or for a type whose `Decodable`
/// implementation does more than read its keys, write the schema yourself with
/// ``ChappieGenerationSchema``'s builders:
///
/// ```swift
/// static var generationSchema: ChappieGenerationSchema {
///     .object([
///         .init("title", .string(), description: "A short, appetising title"),
///         .init("minutes", .integer(description: "Total time in minutes")),
///     ])
/// }
/// ```
///
/// Dictionaries, `Date` and recursive types cannot be derived; their schema reports
/// ``ChappieGenerationSchema/invalidReason`` and a request with it fails before it is sent.
public protocol ChappieGenerable: Decodable, Sendable {
    /// The schema the model's JSON must follow; by default derived from `init(from:)`.
    static var generationSchema: ChappieGenerationSchema { get }
    /// The name sent with the schema (`text.format.name`), letters, digits, `_` and `-` only, at
    /// most 64 characters; by default the type's name.
    static var generationName: String { get }
}

extension ChappieGenerable {
    /// The schema derived from the type's `Decodable` implementation (see ``ChappieGenerable``).
    public static var generationSchema: ChappieGenerationSchema { SchemaDerivation.schema(of: Self.self) }

    /// The type's name, reduced to the characters the backend accepts.
    public static var generationName: String { SchemaDerivation.name(of: Self.self) }
}

extension ChappieGenerable where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// A string that is one of the raw values, in `allCases` order.
    public static var generationSchema: ChappieGenerationSchema { .string(oneOf: allCases.map(\.rawValue)) }
}

extension String: ChappieGenerable {
    /// A string.
    public static var generationSchema: ChappieGenerationSchema { .string() }
}

extension Int: ChappieGenerable {
    /// A whole number.
    public static var generationSchema: ChappieGenerationSchema { .integer() }
}

extension Double: ChappieGenerable {
    /// A number.
    public static var generationSchema: ChappieGenerationSchema { .number() }
}

extension Bool: ChappieGenerable {
    /// `true` or `false`.
    public static var generationSchema: ChappieGenerationSchema { .boolean() }
}

extension Array: ChappieGenerable where Element: ChappieGenerable {
    /// An array of the element's schema.
    public static var generationSchema: ChappieGenerationSchema { .array(of: Element.generationSchema) }
}

extension Optional: ChappieGenerable where Wrapped: ChappieGenerable {
    /// The wrapped schema or `null`.
    public static var generationSchema: ChappieGenerationSchema { .optional(Wrapped.generationSchema) }
}
