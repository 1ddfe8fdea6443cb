import ChappieTransport
import Foundation

/// The useful parts of an error body, whatever its shape: FastAPI `{"detail":"…"}` or
/// `{"detail":[…]}`, OpenAI `{"error":{"message","type","code",…}}`, OAuth
/// `{"error":"…","error_description":"…"}`, plain text or HTML (PROTOCOL §1.3, §4.7, §5.5, §7.3).
struct ServerErrorBody: Sendable, Equatable {
    /// `error.code`, the OAuth `error` string, or a top-level `code`.
    var code: String?
    /// `error.type`.
    var type: String?
    /// A sanitized, redacted and bounded message.
    var message: String
    /// `error.plan_type` of a usage-limit error.
    var planType: String?
    /// `error.resets_at` (unix seconds) of a usage-limit error.
    var resetsAt: Date?
    /// `error.resets_in_seconds` of a usage-limit error: how long until it resets, as the server
    /// counted when it answered (finite and not negative, else nil).
    var resetsIn: Duration?
    /// `error.param`: the request parameter the error is about (the public API's
    /// `subscription_sharing_unsupported_capability`, SIWC.md §6.3).
    var param: String?
    /// True for a FastAPI-style `{"detail": …}` body: an admission refusal of the public API's
    /// direct route (SIWC.md §6.2), whose text is a diagnostic, not a code.
    var isDetail = false

    /// A body from its parts. `code`, `type` and `param` come from the server too: they are
    /// sanitized, redacted and bounded like `message` (a normal code is left as it is).
    init(code: String? = nil, type: String? = nil, message: String, planType: String? = nil, resetsAt: Date? = nil, param: String? = nil) {
        self.code = code.map { Redaction.clean($0, maximumBytes: Wire.fieldBytes) }
        self.type = type.map { Redaction.clean($0, maximumBytes: Wire.fieldBytes) }
        self.message = message
        self.planType = planType
        self.resetsAt = resetsAt
        self.param = param.map { Redaction.clean($0, maximumBytes: Wire.fieldBytes) }
    }

    /// Parses `data` as one of the known shapes, falling back to its text.
    init(data: Data, status: Int) {
        guard let object = (try? ChappieJSONValue(jsonData: data))?.objectValue else {
            let text = String(decoding: data.prefix(2048), as: UTF8.self)
            let looksLikeHTML = text.range(of: "<html", options: .caseInsensitive) != nil
            self.init(message: Redaction.clean(looksLikeHTML ? Wire.htmlPage : (text.isEmpty ? "HTTP \(status)" : text)))
            return
        }
        self.init(object: object, status: status)
    }

    /// Parses an HTTP error answer: its body, and, when the body names no code, the base64 JSON of
    /// an `x-error-json` header (`{"error":{"code":"token_expired"}}`, PROTOCOL §2.4).
    init(data: Data, status: Int, headers: HTTPFields) {
        self.init(data: data, status: status)
        if code == nil, let header = headers[Wire.errorJSONHeader],
           let decoded = Data(base64Encoded: header.trimmingCharacters(in: .whitespaces)),
           let object = (try? ChappieJSONValue(jsonData: decoded))?.objectValue {
            let fromHeader = ServerErrorBody(object: object, status: status)
            code = fromHeader.code
            type = type ?? fromHeader.type
        }
    }

    /// Parses an already decoded error object (also used for `response.failed` and WebSocket `error`).
    init(object: [String: ChappieJSONValue], status: Int) {
        if let error = object[Wire.error]?.objectValue {
            self.init(code: error[Wire.code]?.stringValue, type: error[Wire.type]?.stringValue,
                      message: Redaction.clean(error[Wire.message]?.stringValue ?? "HTTP \(status)"),
                      planType: error[Wire.planType]?.stringValue,
                      resetsAt: error[Wire.resetsAt]?.doubleValue.map(Date.init(timeIntervalSince1970:)),
                      param: error[Wire.param]?.stringValue)
            resetsIn = error[Wire.resetsInSeconds]?.doubleValue.flatMap { $0.isFinite && $0 >= 0 ? Duration.seconds($0) : nil }
        } else if let error = object[Wire.error]?.stringValue {
            self.init(code: error, message: Redaction.clean(object[Wire.description]?.stringValue ?? error))
        } else if let detail = object[Wire.detail] {
            let text: String = switch detail {
            case .string(let text): text
            case .array(let items): items.compactMap { $0[Wire.msg]?.stringValue ?? $0.stringValue }.joined(separator: "; ")
            default: detail.jsonString
            }
            // A nested `{"detail":{"code":…}}` (SIWC.md §6.2) names its code inside.
            self.init(code: object[Wire.code]?.stringValue ?? detail[Wire.code]?.stringValue,
                      message: Redaction.clean(text.isEmpty ? "HTTP \(status)" : text))
            isDetail = true
        } else {
            self.init(code: object[Wire.code]?.stringValue,
                      message: Redaction.clean(object[Wire.message]?.stringValue ?? "HTTP \(status)"))
        }
    }

    private enum Wire {
        /// Longest code, type or param kept, in UTF-8 bytes.
        static let fieldBytes = 128
        static let error = "error"
        static let code = "code"
        static let type = "type"
        static let message = "message"
        static let description = "error_description"
        static let detail = "detail"
        static let msg = "msg"
        static let planType = "plan_type"
        static let resetsAt = "resets_at"
        static let resetsInSeconds = "resets_in_seconds"
        static let param = "param"
        static let errorJSONHeader = "x-error-json"
        /// The message of an HTML body (a proxy's or a load balancer's page), which is never shown:
        /// whoever shows the error names the status once.
        static let htmlPage = "an HTML error page"
    }
}
