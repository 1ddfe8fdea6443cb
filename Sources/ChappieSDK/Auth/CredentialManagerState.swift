import Foundation

/// What the credential manager tells observers (the auth session) about the stored sign-in.
enum CredentialStatus: Sendable, Equatable {
    /// A usable credential for this account.
    case signedIn(ChappieAccountInfo)
    /// No credential.
    case signedOut
    /// The credential cannot be renewed; the reason is safe to show.
    case reauthenticationRequired(String)
}

/// The header material for one request: token-free in its description.
struct Authorization: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let accessToken: String
    let accountID: String?
    /// Increases with every new access token, so a late 401 for an old token cannot force a
    /// second refresh after a newer token already exists.
    let generation: Int
    var description: String { "Authorization(generation: \(generation), token: [redacted])" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["generation": generation, "token": "[redacted]"]) }

    /// `Authorization: Bearer …` plus `ChatGPT-Account-ID` when known.
    var headers: [(name: String, value: String)] {
        var headers = [(name: "Authorization", value: "Bearer \(accessToken)")]
        if let accountID { headers.append((name: "ChatGPT-Account-ID", value: accountID)) }
        return headers
    }
}
