import Foundation

/// `GET /backend-api/wham/accounts/check`: the workspace routing discovery Codex's built-in
/// provider makes before any model request (`codex-rs/model-provider/src/workspace_routing.rs`,
/// `codex-rs/backend-client`'s `AccountEntry`). The answer lists the signed-in account with
/// `workspace_backend_origin` (the emulator's own origin, the TLS one for a request that came
/// through ``ChappieEmulator/startTLS()``'s front end, so Codex keeps talking to it) and
/// `account_routing_override` `NO_CONSTRAINT` (no residency: Codex adds no
/// `x-openai-account-routing-override`). Requires a valid bearer.
struct AccountsCheckEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Serves the account list.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let rejection = await BackendAuthorization.reject(request, services: services) { return rejection }
        let account = services.configuration.account
        let entry: JSONValue = [
            Wire.id: .string(account.accountID),
            Wire.planType: .string(account.planType),
            Wire.workspaceBackendOrigin: .string(origin(of: request)),
            Wire.accountRoutingOverride: .string(Wire.noConstraint),
            Wire.name: .null,
            Wire.profilePictureURL: .null,
            Wire.structure: .string(Wire.personal),
        ]
        return .json(200, [
            Wire.accounts: [entry],
            Wire.accountOrdering: [.string(account.accountID)],
            Wire.defaultAccountID: .string(account.accountID),
        ])
    }

    /// The emulator's origin as the client reached it: `https://127.0.0.1:<tls port>` through the
    /// TLS front end (its `Host` names that port), else the plain one.
    private func origin(of request: HTTPRequest) -> String {
        if let tlsPort = services.tlsPort, request.header(Wire.host)?.hasSuffix(":\(tlsPort)") == true {
            return "https://127.0.0.1:\(tlsPort)"
        }
        return services.issuer
    }

    private enum Wire {
        static let host = "Host"
        static let accounts = "accounts"
        static let accountOrdering = "account_ordering"
        static let defaultAccountID = "default_account_id"
        static let id = "id"
        static let planType = "plan_type"
        static let workspaceBackendOrigin = "workspace_backend_origin"
        static let accountRoutingOverride = "account_routing_override"
        static let noConstraint = "NO_CONSTRAINT"
        static let name = "name"
        static let profilePictureURL = "profile_picture_url"
        static let structure = "structure"
        static let personal = "personal"
    }
}
