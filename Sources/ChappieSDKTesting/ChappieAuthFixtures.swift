@_spi(ChappieTesting) import ChappieCore
import Foundation

/// Seeded credentials for app tests: fake, unsigned JWTs with the real claim layout
/// (header `{"alg":"none"}`, payload with `exp` and the `https://api.openai.com/auth` claims).
/// They work against ``ChappieEmulator`` only when issued by it; use them for offline state tests.
public enum ChappieAuthFixtures {
    /// A credential for a fake account.
    /// - Parameters:
    ///   - email: the account email.
    ///   - plan: the raw plan, e.g. `plus`.
    ///   - accountID: the ChatGPT account id.
    ///   - userID: the ChatGPT user id.
    ///   - expiresIn: seconds until the access token expires (negative = already expired).
    ///   - includeRefreshToken: false makes a credential that cannot be renewed.
    ///   - now: the issue date.
    /// - Returns: the credential (unsigned tokens with the real claim layout).
    public static func credential(
        email: String = "tester@example.com", plan: String = "plus", accountID: String = "acct-test-0001",
        userID: String = "user-test-0001", expiresIn: TimeInterval = 3600, includeRefreshToken: Bool = true, now: Date = Date()
    ) -> ChappieCredential {
        let exp = Int(now.addingTimeInterval(expiresIn).timeIntervalSince1970)
        let auth: [String: Any] = ["chatgpt_plan_type": plan, "chatgpt_user_id": userID, "chatgpt_account_id": accountID]
        let idToken = jwt(["email": email, "exp": exp, "iat": Int(now.timeIntervalSince1970), "https://api.openai.com/auth": auth])
        let accessToken = jwt(["exp": exp, "jti": UUID().uuidString, "https://api.openai.com/auth": auth])
        return ChappieCredential(idToken: idToken, accessToken: accessToken,
                                 refreshToken: includeRefreshToken ? "rt_fixture_\(UUID().uuidString)" : nil,
                                 expiresIn: expiresIn, obtainedAt: now)
    }

    /// An in-memory store already holding `credential` for `configuration`'s slot, and the
    /// configuration pointing at it.
    public static func signedIn(
        _ configuration: ChappieConfiguration = ChappieConfiguration(), credential: ChappieCredential = credential()
    ) async throws -> ChappieConfiguration {
        var configuration = configuration
        let store = ChappieInMemoryCredentialStore()
        try await store.saveCredential(credential, for: configuration.credentialKey)
        configuration.credentialStore = store
        return configuration
    }

    /// A configuration whose stored access token expired an hour ago.
    public static func expired(_ configuration: ChappieConfiguration = ChappieConfiguration()) async throws -> ChappieConfiguration {
        try await signedIn(configuration, credential: credential(expiresIn: -3600))
    }

    /// A configuration whose credential cannot be renewed (no refresh token, expired).
    public static func needingReauthentication(_ configuration: ChappieConfiguration = ChappieConfiguration()) async throws -> ChappieConfiguration {
        try await signedIn(configuration, credential: credential(expiresIn: -3600, includeRefreshToken: false))
    }

    private static func jwt(_ payload: [String: Any]) -> String {
        let header = #"{"alg":"none","typ":"JWT"}"#
        let body = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data()
        return [Data(header.utf8), body, Data("sig".utf8)].map(base64URL).joined(separator: ".")
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
