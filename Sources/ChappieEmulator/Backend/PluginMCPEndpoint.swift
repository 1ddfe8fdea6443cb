import Foundation

/// `POST /backend-api/ps/mcp`: the plugin service's MCP endpoint (Streamable HTTP transport,
/// JSON-RPC 2.0) that the Codex CLI 0.163.0 connects to at start-up (PROTOCOL §12). The emulator
/// is an MCP server with no tools: it answers `initialize`, accepts notifications with 202, lists
/// empty tools/resources/prompts, and answers other methods with JSON-RPC error -32601. Without it
/// Codex still works but logs a transport error for the 404.
struct PluginMCPEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one JSON-RPC message.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let message = JSONValue.parse(request.body), let method = message[Wire.method]?.stringValue else {
            return .json(400, error(id: .null, code: -32700, message: "Parse error"))
        }
        guard let id = message[Wire.id] else {
            return HTTPResponse(status: 202, headers: [], body: .bytes(.init()))  // a notification
        }
        switch method {
        case "initialize":
            let version = message[Wire.params]?[Wire.protocolVersion] ?? .string(Wire.defaultProtocolVersion)
            return .json(200, result(id: id, [
                Wire.protocolVersion: version,
                "capabilities": ["tools": ["listChanged": false]],
                "serverInfo": ["name": "chappie-emulator", "version": "1.0.0"],
            ]), headers: [(Wire.sessionHeader, RandomIdentifier.uuid())])
        case "ping": return .json(200, result(id: id, [:]))
        case "tools/list": return .json(200, result(id: id, ["tools": []]))
        case "resources/list": return .json(200, result(id: id, ["resources": []]))
        case "resources/templates/list": return .json(200, result(id: id, ["resourceTemplates": []]))
        case "prompts/list": return .json(200, result(id: id, ["prompts": []]))
        default: return .json(200, error(id: id, code: -32601, message: "Method not found"))
        }
    }

    private func result(id: JSONValue, _ value: JSONValue) -> JSONValue {
        [Wire.jsonrpc: "2.0", Wire.id: id, "result": value]
    }

    private func error(id: JSONValue, code: Int, message: String) -> JSONValue {
        [Wire.jsonrpc: "2.0", Wire.id: id, "error": ["code": .int(code), "message": .string(message)]]
    }

    private enum Wire {
        static let jsonrpc = "jsonrpc"
        static let id = "id"
        static let method = "method"
        static let params = "params"
        static let protocolVersion = "protocolVersion"
        static let defaultProtocolVersion = "2025-06-18"
        static let sessionHeader = "Mcp-Session-Id"
    }
}
