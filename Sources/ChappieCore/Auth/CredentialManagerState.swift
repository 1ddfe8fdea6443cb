import ChappieTransport
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
    /// The sign-in route of the credential: which backend its token may go to.
    var route: ChappieSignInRoute = .deviceCode
    /// Whether the credential grants "ChatGPT plan usage" (always true for a device-code one).
    var planUsageEnabled = true
    var description: String { "Authorization(route: \(route.rawValue), generation: \(generation), token: [redacted])" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["route": route.rawValue, "generation": generation, "token": "[redacted]"]) }

    /// The headers that authorize a request to `url`: `Authorization: Bearer …`, plus
    /// `ChatGPT-Account-ID` on the ChatGPT/Codex backend. The only way to get them: it refuses,
    /// before anything is sent, a token going to a backend of another sign-in route (SIWC.md §8:
    /// a device-code token never goes to the public API, a Sign in with ChatGPT token never to
    /// `/backend-api`), to a URL under neither backend, and a Sign in with ChatGPT token without
    /// the plan-usage grant. Throws ``ChappieClientError/publicAPI(_:)``.
    func headers(to url: URL, endpoints: ChappieEndpoints) throws -> HTTPFields {
        guard let destination = InferenceBackend.destination(of: url, in: endpoints), destination.route == route else {
            throw ChappieClientError.publicAPI(ChappieAPIError(code: .credentialRouteMismatch))
        }
        var headers: HTTPFields = [Wire.authorization: "Bearer \(accessToken)"]
        switch destination {
        case .codex:
            if let accountID { headers.append(name: Wire.accountID, value: accountID) }
        case .publicAPI:
            guard planUsageEnabled else { throw ChappieClientError.publicAPI(ChappieAPIError(code: .planUsageNotGranted)) }
        }
        return headers
    }

    private enum Wire {
        static let authorization = "Authorization"
        static let accountID = "ChatGPT-Account-ID"
    }
}
