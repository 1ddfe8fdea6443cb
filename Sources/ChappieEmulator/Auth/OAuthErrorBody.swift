/// The two error body shapes of the auth server (PROTOCOL §1.3, §2.3): OAuth style
/// `{"error":"<code>","error_description":"<text>"}` (RFC 6749 §5.2) and OpenAI style
/// `{"error":{"message","type","param","code"}}`.
enum OAuthErrorBody {
    /// An RFC 6749 §5.2 error response.
    static func oauth(_ status: Int, _ code: String, _ description: String) -> HTTPResponse {
        .json(status, [Wire.error: .string(code), Wire.errorDescription: .string(description)])
    }

    /// An OpenAI-style error object, as the token endpoint sends for refresh-token failures.
    static func openAI(_ status: Int, code: String, message: String, type: String = Wire.invalidRequestError) -> HTTPResponse {
        .json(status, [
            Wire.error: [
                Wire.message: .string(message), Wire.type: .string(type), Wire.param: .null, Wire.code: .string(code),
            ]
        ])
    }

    private enum Wire {
        static let error = "error"
        static let errorDescription = "error_description"
        static let message = "message"
        static let type = "type"
        static let param = "param"
        static let code = "code"
        static let invalidRequestError = "invalid_request_error"
    }
}
