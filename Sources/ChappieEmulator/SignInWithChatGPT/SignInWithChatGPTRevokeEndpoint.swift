import Foundation

/// `POST /api/accounts/oauth/revoke` of the SIWC issuer (SIWC.md §2.9, RFC 7009): a form body
/// with `token`, optional `token_type_hint` and `client_id`. It answers an empty 200 whether or
/// not the token was known (RFC 7009 §2.2), and the token stops working at once: a refresh token
/// ends its whole session (its access tokens too), an access token only itself. A token of
/// another client is left alone. The registration stays. A JSON body or a missing `token` is
/// 400 `invalid_request`.
struct SignInWithChatGPTRevokeEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Revokes the named token.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let contentType = request.header(Wire.contentType)?.lowercased() ?? ""
        let fields = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
        guard contentType.hasPrefix(Wire.formType), let token = fields[Wire.token], !token.isEmpty else {
            return .json(400, [Wire.error: .string(Wire.invalidRequest), Wire.errorDescription: .string(Wire.missingToken)])
        }
        let clientID = fields[Wire.clientID].flatMap { $0.isEmpty ? nil : $0 }
        await services.signInWithChatGPT.revoke(token, clientID: clientID)
        return HTTPResponse(status: 200, headers: [(Wire.cacheControl, Wire.noStore)], body: .bytes(Data()))
    }

    private enum Wire {
        static let contentType = "Content-Type"
        static let formType = "application/x-www-form-urlencoded"
        static let token = "token"
        static let clientID = "client_id"
        static let error = "error"
        static let errorDescription = "error_description"
        static let invalidRequest = "invalid_request"
        static let missingToken = "A form body with the token parameter is required."
        static let cacheControl = "Cache-Control"
        static let noStore = "no-store"
    }
}
