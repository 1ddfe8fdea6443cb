import ChappieTransport
import Foundation

/// The tokens of one signed-in ChatGPT account, as issued by the token endpoint.
///
/// Apps never read the tokens: the properties are internal, `description`, `debugDescription` and
/// the mirror show only non-secret facts, and the type is `Decodable` but not `Encodable`, so app
/// code cannot serialize a credential to read them either. The SDK's stores write it through an
/// internal encoding. A custom ``ChappieCredentialStore`` must persist tokens, so it opts in
/// explicitly with `@_spi(ChappieCredentialStorage) import ChappieSDK` and calls
/// `encodedForStorage()`; it reads the data back with `JSONDecoder` (or
/// ``init(storageData:)``). Such a store sees the tokens by design: keep it small and reviewed.
public struct ChappieCredential: Sendable, Decodable, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    let idToken: String
    let accessToken: String
    let refreshToken: String?
    /// The ChatGPT account (workspace) id, sent as `ChatGPT-Account-ID`.
    public let accountID: String?
    /// When the access token expires (JWT `exp`, else `expires_in`), if known.
    public let accessTokenExpiresAt: Date?
    /// When these tokens were obtained.
    public let obtainedAt: Date
    /// Why these tokens can no longer be renewed, once the token endpoint rejected the refresh
    /// token (or there is none): persisted with the credential so the next launch shows
    /// ``ChappieAuthState/reauthenticationRequired`` at once instead of `.signedIn`. A new
    /// sign-in or a successful refresh stores a credential without it. Safe to show; never a token.
    var reauthenticationReason: String?
    /// Which sign-in route issued these tokens; it picks the backend every request goes to
    /// (the ChatGPT/Codex backend for ``ChappieSignInRoute/deviceCode``, the public Responses API
    /// for ``ChappieSignInRoute/signInWithChatGPT``). Data stored before routes existed reads as
    /// `.deviceCode`.
    public let route: ChappieSignInRoute
    /// The client id issued to this app's registration (`oaiapp_…`) for a Sign in with ChatGPT
    /// credential; nil for a device-code one. Not a secret.
    public let clientID: String?
    /// The scopes the token endpoint granted (its `scope`), for a Sign in with ChatGPT credential;
    /// empty when the server did not say (device code).
    public let grantedScopes: [String]

    /// Whether the user granted "ChatGPT plan usage" (`chatgpt.tokens.use.direct` among the granted
    /// scopes). Always true for a device-code credential, whose plan use is implied.
    public var planUsageEnabled: Bool {
        route == .deviceCode || grantedScopes.contains(ChappieSignInRoute.planUsageScope)
    }

    /// Creates a credential from raw tokens. For ChappieSDKTesting's fixtures; apps never hold tokens.
    @_spi(ChappieTesting)
    public init(idToken: String, accessToken: String, refreshToken: String?, expiresIn: TimeInterval?, obtainedAt: Date,
                route: ChappieSignInRoute = .deviceCode, clientID: String? = nil, grantedScopes: [String] = []) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.obtainedAt = obtainedAt
        self.route = route
        self.clientID = clientID
        self.grantedScopes = grantedScopes
        let idClaims = JWTClaims(token: idToken)
        let accessClaims = JWTClaims(token: accessToken)
        accountID = idClaims?.accountID ?? accessClaims?.accountID
        accessTokenExpiresAt = accessClaims?.expiresAt ?? expiresIn.map { obtainedAt.addingTimeInterval($0) }
        registerSecrets()
    }

    /// Decodes a stored credential. Throws `DecodingError` for a malformed one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        idToken = try container.decode(String.self, forKey: .idToken)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        accountID = try container.decodeIfPresent(String.self, forKey: .accountID)
        accessTokenExpiresAt = try container.decodeIfPresent(Date.self, forKey: .accessTokenExpiresAt)
        obtainedAt = try container.decode(Date.self, forKey: .obtainedAt)
        reauthenticationReason = try container.decodeIfPresent(String.self, forKey: .reauthenticationReason)
        route = try container.decodeIfPresent(ChappieSignInRoute.self, forKey: .route) ?? .deviceCode
        clientID = try container.decodeIfPresent(String.self, forKey: .clientID)
        grantedScopes = try container.decodeIfPresent([String].self, forKey: .grantedScopes) ?? []
        registerSecrets()
    }

    /// Decodes the data `encodedForStorage()` produced. Throws `DecodingError` for anything else.
    public init(storageData data: Data) throws {
        self = try JSONDecoder().decode(ChappieCredential.self, from: data)
    }

    /// The credential as JSON (sorted keys) for a credential store: the only way to serialize it,
    /// behind SPI because the data holds the tokens. Throws `EncodingError` (not in practice).
    @_spi(ChappieCredentialStorage)
    public func encodedForStorage() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(StoredForm(self))
    }

    /// The encodable twin of a credential, internal so that app code cannot encode one.
    private struct StoredForm: Encodable {
        let credential: ChappieCredential
        init(_ credential: ChappieCredential) { self.credential = credential }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(credential.idToken, forKey: .idToken)
            try container.encode(credential.accessToken, forKey: .accessToken)
            try container.encodeIfPresent(credential.refreshToken, forKey: .refreshToken)
            try container.encodeIfPresent(credential.accountID, forKey: .accountID)
            try container.encodeIfPresent(credential.accessTokenExpiresAt, forKey: .accessTokenExpiresAt)
            try container.encode(credential.obtainedAt, forKey: .obtainedAt)
            try container.encodeIfPresent(credential.reauthenticationReason, forKey: .reauthenticationReason)
            if credential.route != .deviceCode { try container.encode(credential.route, forKey: .route) }
            try container.encodeIfPresent(credential.clientID, forKey: .clientID)
            if !credential.grantedScopes.isEmpty { try container.encode(credential.grantedScopes, forKey: .grantedScopes) }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case idToken = "id_token", accessToken = "access_token", refreshToken = "refresh_token"
        case accountID = "account_id", accessTokenExpiresAt = "access_token_expires_at"
        case obtainedAt = "obtained_at"
        case reauthenticationReason = "reauthentication_required_reason"
        case route, clientID = "client_id", grantedScopes = "granted_scopes"
    }

    /// The same tokens, marked as no longer renewable for `reason` (see ``reauthenticationReason``).
    func markingReauthenticationRequired(_ reason: String) -> ChappieCredential {
        var marked = self
        marked.reauthenticationReason = reason
        return marked
    }

    private func registerSecrets() {
        Redaction.register(idToken)
        Redaction.register(accessToken)
        if let refreshToken { Redaction.register(refreshToken) }
    }

    /// Account facts read from the ID token claims (PROTOCOL §3.1).
    var accountInfo: ChappieAccountInfo {
        let claims = JWTClaims(token: idToken)
        if route == .signInWithChatGPT {
            // Only the standard claims are documented: the email, and `sub` as the user.
            var info = ChappieAccountInfo(email: claims?.email, plan: nil, userID: claims?.payload["sub"]?.stringValue, accountID: nil)
            info.planUsageEnabled = planUsageEnabled
            return info
        }
        let accessClaims = JWTClaims(token: accessToken)
        return ChappieAccountInfo(
            email: claims?.email,
            plan: (claims?.planType ?? accessClaims?.planType).map(ChappiePlan.init(rawValue:)),
            userID: claims?.userID ?? accessClaims?.userID,
            accountID: accountID
        )
    }

    /// The same account with newer tokens; absent fields keep their old values (PROTOCOL §2.2).
    func refreshed(with response: TokenResponse, at date: Date) -> ChappieCredential {
        ChappieCredential(
            idToken: response.idToken ?? idToken,
            accessToken: response.accessToken ?? accessToken,
            refreshToken: response.refreshToken ?? refreshToken,
            expiresIn: response.expiresIn,
            obtainedAt: date,
            route: route,
            clientID: clientID,
            grantedScopes: response.scope.map { $0.split(separator: " ").map(String.init) } ?? grantedScopes
        )
    }

    /// A description without any token.
    public var description: String {
        "ChappieCredential(route: \(route.rawValue), accountID: \(accountID ?? "nil"), expiresAt: \(accessTokenExpiresAt.map { "\($0)" } ?? "unknown"), "
            + "\(reauthenticationReason == nil ? "" : "reauthenticationRequired: true, ")tokens: [redacted])"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror without any token.
    public var customMirror: Mirror {
        Mirror(self, children: ["route": route.rawValue, "clientID": clientID as Any, "accountID": accountID as Any, "accessTokenExpiresAt": accessTokenExpiresAt as Any,
                                "reauthenticationReason": reauthenticationReason as Any, "tokens": "[redacted]"])
    }
}

/// Identifies one credential slot: (service, account), as in a Keychain generic-password item.
public struct ChappieCredentialKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The service (namespace), e.g. `com.chappie.sdk`.
    public var service: String
    /// The account (slot) inside the service, e.g. `default`.
    public var account: String
    /// Creates a key.
    public init(service: String, account: String) {
        self.service = service
        self.account = account
    }
    /// `service/account`.
    public var description: String { "\(service)/\(account)" }
}

/// The sign-in route that issued a credential. It decides where the credential's requests go, so
/// an app never picks a backend by a setting it could get wrong.
public enum ChappieSignInRoute: String, Sendable, Hashable, Codable, CaseIterable {
    /// The device-code flow of the Codex CLI: requests go to the ChatGPT/Codex backend
    /// (``ChappieEndpoints/backend``).
    case deviceCode = "device_code"
    /// OpenAI's Sign in with ChatGPT (a per-app registration with browser consent): requests go to
    /// the public Responses API (``ChappieEndpoints/apiBase``).
    case signInWithChatGPT = "sign_in_with_chatgpt"

    /// The scope that grants "ChatGPT plan usage" to a Sign in with ChatGPT registration.
    public static let planUsageScope = "chatgpt.tokens.use.direct"
}
