/// The bearer check shared by every backend endpoint (PROTOCOL §2.4): the `Authorization: Bearer`
/// token must be an access token the emulator issued that is neither expired nor revoked.
/// Failures answer 401 `{"detail":"Unauthorized"}`; an expired token also carries
/// `x-error-json` (base64 of `{"error":{"code":"token_expired"}}`), as the real backend does.
enum BackendAuthorization {
    /// nil when the request may proceed, else the 401 to send.
    static func reject(_ request: HTTPRequest, services: EmulatorServices) async -> HTTPResponse? {
        guard let token = request.bearerToken else { return .detail(401, Wire.unauthorized) }
        switch await services.tokens.accessTokenState(token) {
        case .valid: return nil
        case .expired:
            let errorJSON: JSONValue = [Wire.error: [Wire.code: .string(Wire.tokenExpired)]]
            return .detail(401, Wire.unauthorized, headers: [
                (Wire.authorizationErrorHeader, Wire.tokenExpired),
                (Wire.errorJSONHeader, Base64URL.standard(errorJSON.data)),
            ])
        case .revoked, .unknown:
            return .detail(401, Wire.unauthorized)
        }
    }

    private enum Wire {
        static let unauthorized = "Unauthorized"
        static let error = "error"
        static let code = "code"
        static let tokenExpired = "token_expired"
        static let authorizationErrorHeader = "x-openai-authorization-error"
        static let errorJSONHeader = "x-error-json"
    }
}
