import Foundation

/// An app function the model may call with typed arguments: the SDK declares `Arguments`'
/// schema with `"strict": true`, decodes the model's arguments and calls ``call(arguments:)``.
///
/// ```swift
/// struct WeatherTool: ChappieTypedTool {
///     struct Arguments: ChappieGenerable {
///         var city: String
///         var unit: Unit?
///         enum Unit: String, CaseIterable, ChappieGenerable { case celsius, fahrenheit }
///     }
///     let name = "get_weather"
///     let description = "The current weather in a city."
///     func call(arguments: Arguments) async throws -> String {
///         "18° and sunny in \(arguments.city)"
///     }
/// }
///
/// let client = Chappie.client(tools: [try ChappieHostTool(WeatherTool())])
/// ```
///
/// The approval policy works as for any ``ChappieHostTool``. Arguments that do not decode as
/// `Arguments` never reach ``call(arguments:)``: the model gets an error output that says which
/// member did not fit, and may try again.
public protocol ChappieTypedTool: Sendable {
    /// The arguments the model sends; their schema must be an object.
    associatedtype Arguments: ChappieGenerable

    /// The function name the model calls.
    var name: String { get }
    /// What the tool does, for the model.
    var description: String { get }
    /// When it may run; by default `.automatic`.
    var policy: ChappieToolPolicy { get }

    /// Runs the tool with the model's decoded arguments and returns the text the model gets
    /// back. A thrown error becomes a failed result for the model; honour cancellation.
    func call(arguments: Arguments) async throws -> String
}

extension ChappieTypedTool {
    /// Runs as soon as the model calls it.
    public var policy: ChappieToolPolicy { .automatic }
}

extension ChappieHostTool {
    /// A host tool that runs `tool` with decoded arguments, declared with `"strict": true`.
    ///
    /// Throws ``ChappieGenerationError/invalidSchema(_:)`` when `Arguments` has no usable
    /// schema or its schema is not an object.
    public init<Tool: ChappieTypedTool>(_ tool: Tool) throws {
        let schema = Tool.Arguments.generationSchema
        if let reason = schema.invalidReason { throw ChappieGenerationError.invalidSchema(reason) }
        let json = schema.jsonSchema
        guard json["type"]?.stringValue == "object" else {
            throw ChappieGenerationError.invalidSchema("a tool's arguments must be an object")
        }
        self.init(name: tool.name, description: tool.description, inputSchema: json, policy: tool.policy) { call in
            let arguments: Tool.Arguments
            do {
                arguments = try JSONDecoder().decode(Tool.Arguments.self, from: Data(call.rawArguments.utf8))
            } catch {
                throw ToolArgumentsMismatch(reason: ToolArgumentsMismatch.reason(error))
            }
            return ChappieToolResult(output: try await tool.call(arguments: arguments))
        }
        strict = true
    }
}

/// The model's arguments did not decode as the tool's `Arguments`; what the model is told.
struct ToolArgumentsMismatch: Error, CustomStringConvertible {
    var reason: String

    var description: String { "the arguments do not match the tool's schema: \(reason); call the tool again with arguments that do" }

    /// Which member did not fit (the coding path and the expected type), without the values.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "they are not valid JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the arguments" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)) lacks the member \(key.stringValue)"
        case .typeMismatch(let type, let context): return "\(path(context)) is not \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is null, expected \(type)"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "they are not valid JSON" : "\(path(context)) is malformed"
        @unknown default: return "they do not fit"
        }
    }
}
