/// `POST /oauth/revoke` (RFC 7009, PROTOCOL §2.6): JSON or form body with `token` and optional
/// `token_type_hint` / `client_id`; answers 200 `{}` whether or not the token was known, and the
/// token stops working at once.
struct RevokeEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Revokes the named token.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let fields = RequestFields.parse(request), let token = fields[Wire.token], !token.isEmpty else {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.missingToken)
        }
        if let clientID = fields[Wire.clientID], !clientID.isEmpty, clientID != TokenStore.clientID {
            return OAuthErrorBody.oauth(401, Wire.invalidClient, Wire.unknownClient)
        }
        await services.tokens.revoke(token)
        return .json(200, [:])
    }

    private enum Wire {
        static let token = "token"
        static let clientID = "client_id"
        static let invalidRequest = "invalid_request"
        static let invalidClient = "invalid_client"
        static let missingToken = "Missing required parameter: token."
        static let unknownClient = "Unknown client_id."
    }
}
