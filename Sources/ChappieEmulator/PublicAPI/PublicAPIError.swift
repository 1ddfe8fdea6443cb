import Foundation

/// The error bodies of the public API under Sign in with ChatGPT (SIWC.md §6.2–6.3): the
/// structured `{"error":{"message","type","param","code"}}` of the Responses API, and the
/// direct-route admission refusal `{"detail":"…"}` (or nested `{"detail":{"code","message"}}`).
/// Every answer carries an `x-request-id`.
enum PublicAPIError {
    /// A structured error; `type` follows the status (`invalid_request_error` for 4xx,
    /// `rate_limit_error` for 429, `server_error` for 5xx).
    static func structured(_ status: Int, code: String?, param: String? = nil, message: String? = nil) -> HTTPResponse {
        let type = status == 429 ? Wire.rateLimitError : status >= 500 ? Wire.serverError : Wire.invalidRequestError
        let body: JSONValue = [
            Wire.error: [
                Wire.message: .string(message ?? Wire.message(for: code)), Wire.type: .string(type),
                Wire.param: param.map(JSONValue.string) ?? .null, Wire.code: code.map(JSONValue.string) ?? .null,
            ]
        ]
        return .json(status, body, headers: [(Wire.requestID, RandomIdentifier.prefixed("req_"))])
    }

    /// An admission refusal with a text `detail`, or a nested one carrying `nestedCode`.
    static func admission(_ status: Int, nestedCode: String? = nil, text: String? = nil) -> HTTPResponse {
        let message = text ?? Wire.admissionText(status)
        let detail: JSONValue = nestedCode.map { [Wire.code: .string($0), Wire.message: .string(message)] } ?? .string(message)
        return .json(status, [Wire.detail: detail], headers: [(Wire.requestID, RandomIdentifier.prefixed("req_"))])
    }

    /// A FastAPI validation error (422), as the direct route answers a non-list `input`.
    static func validation(field: String, type: String, message: String, input: JSONValue) -> HTTPResponse {
        let item: JSONValue = [
            "type": .string(type), "loc": ["body", .string(field)], "msg": .string(message), "input": input,
        ]
        return .json(422, [Wire.detail: [item]], headers: [(Wire.requestID, RandomIdentifier.prefixed("req_"))])
    }

    private enum Wire {
        static let error = "error"
        static let message = "message"
        static let type = "type"
        static let param = "param"
        static let code = "code"
        static let detail = "detail"
        static let requestID = "x-request-id"
        static let invalidRequestError = "invalid_request_error"
        static let rateLimitError = "rate_limit_error"
        static let serverError = "server_error"
        static func message(for code: String?) -> String {
            switch code {
            case "subscription_sharing_unsupported_capability"?: "This Responses parameter is unavailable with ChatGPT plan usage."
            case "subscription_sharing_usage_limit_exceeded"?: "You have reached this app's ChatGPT plan usage limit."
            case "model_not_found"?: "The requested model does not exist or you do not have access to it."
            default: "The request could not be served with ChatGPT plan usage."
            }
        }
        static func admissionText(_ status: Int) -> String {
            switch status {
            case 401: "The signed identity or direct permission was not accepted."
            case 403: "The request was blocked by a policy or permission check."
            default: "Direct routing is temporarily unavailable."
            }
        }
    }
}
