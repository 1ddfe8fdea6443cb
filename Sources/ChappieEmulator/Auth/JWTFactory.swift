import Foundation

/// Builds the unsigned JWTs the emulator issues (PROTOCOL §3.4): header `{"alg":"none","typ":"JWT"}`,
/// a JSON payload with the ChatGPT claims of §3.1–3.2, and the signature segment base64url("sig").
/// Clients such as Codex decode the payload without verifying the signature.
enum JWTFactory {
    /// An id token for `account`, valid from `issuedAt` for `lifetime` seconds.
    static func idToken(account: ChappieEmulator.Account, issuedAt: Date, lifetime: Int, issuer: String) -> String {
        let now = Int(issuedAt.timeIntervalSince1970)
        return encode([
            Wire.issuer: .string(issuer),
            Wire.audience: [.string(TokenStore.clientID)],
            Wire.subject: .string(account.userID),
            Wire.email: .string(account.email),
            Wire.emailVerified: true,
            Wire.issuedAt: .int(now),
            Wire.authTime: .int(now),
            Wire.expiry: .int(now + lifetime),
            Wire.tokenID: .string(RandomIdentifier.uuid()),
            Wire.authNamespace: authClaims(account),
            Wire.profileNamespace: [Wire.email: .string(account.email), Wire.emailVerified: true],
        ])
    }

    /// An access token for `account`; `exp` is `issuedAt + lifetime`. The `jti` makes each one unique.
    static func accessToken(account: ChappieEmulator.Account, issuedAt: Date, lifetime: Int, issuer: String) -> String {
        let now = Int(issuedAt.timeIntervalSince1970)
        return encode([
            Wire.issuer: .string(issuer),
            Wire.audience: [.string(Wire.apiAudience)],
            Wire.subject: .string(account.userID),
            Wire.clientID: .string(TokenStore.clientID),
            Wire.issuedAt: .int(now),
            Wire.notBefore: .int(now),
            Wire.expiry: .int(now + lifetime),
            Wire.tokenID: .string(RandomIdentifier.uuid()),
            Wire.scope: [.string("openid"), .string("profile"), .string("email"), .string("offline_access")],
            Wire.authNamespace: authClaims(account),
            Wire.profileNamespace: [Wire.email: .string(account.email), Wire.emailVerified: true],
        ])
    }

    /// The decoded payload of a three-part JWT, or nil when it is not one.
    static func payload(of token: String) -> JSONValue? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }), let data = Base64URL.decode(String(parts[1])) else {
            return nil
        }
        return JSONValue.parse(data)
    }

    private static func authClaims(_ account: ChappieEmulator.Account) -> JSONValue {
        [
            Wire.planType: .string(account.planType),
            Wire.userID: .string(account.userID),
            Wire.legacyUserID: .string(account.userID),
            Wire.accountID: .string(account.accountID),
        ]
    }

    private static func encode(_ payload: JSONValue) -> String {
        [Wire.header.data, payload.data, Data(Wire.signature.utf8)].map { Base64URL.encode($0) }.joined(separator: ".")
    }

    private enum Wire {
        static let header: JSONValue = ["alg": "none", "typ": "JWT"]
        static let signature = "sig"
        static let issuer = "iss"
        static let audience = "aud"
        static let subject = "sub"
        static let email = "email"
        static let emailVerified = "email_verified"
        static let issuedAt = "iat"
        static let authTime = "auth_time"
        static let notBefore = "nbf"
        static let expiry = "exp"
        static let tokenID = "jti"
        static let clientID = "client_id"
        static let scope = "scp"
        static let apiAudience = "https://api.openai.com/v1"
        static let authNamespace = "https://api.openai.com/auth"
        static let profileNamespace = "https://api.openai.com/profile"
        static let planType = "chatgpt_plan_type"
        static let userID = "chatgpt_user_id"
        static let legacyUserID = "user_id"
        static let accountID = "chatgpt_account_id"
    }
}
