import Foundation

/// `POST /api/accounts/deviceauth/usercode` and `POST /api/accounts/deviceauth/token`: the
/// proprietary device-code flow of PROTOCOL §1.1–1.2.
///
/// Poll answers:
/// * pending → 403 `{}` (no error: every client keeps polling);
/// * approved → 200 `{"authorization_code","code_challenge","code_verifier"}`;
/// * denied → 401 `{"error":"authorization_declined","error_description":"Denied"}` (Codex's own test body);
/// * expired → 403 with a non-empty `error` object, code `deviceauth_expired` (the real service's
///   expiry is a 403 with a message, FAILURE-CASES §1; a non-empty error marks it terminal);
/// * unknown `device_auth_id`, or a user code that does not belong to it → 404 with an error object
///   `deviceauth_not_found`. Codex treats any 404 as pending until its own 15-minute deadline, which
///   is what it would do against the real service; SDKs can see the non-empty error and stop.
struct DeviceAuthorizationEndpoints {
    /// The shared state.
    let services: EmulatorServices

    /// Issues a device code for the Codex client id.
    func userCode(_ request: HTTPRequest) async -> HTTPResponse {
        guard let fields = RequestFields.parse(request) else {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.malformedBody)
        }
        guard let clientID = fields[Wire.clientID], !clientID.isEmpty else {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.missingClientID)
        }
        guard clientID == TokenStore.clientID else {
            return OAuthErrorBody.oauth(400, Wire.invalidClient, Wire.unknownClient)
        }
        let entry = await services.deviceAuthorizations.create()
        return .json(200, [
            Wire.deviceAuthID: .string(entry.deviceAuthID),
            Wire.userCode: .string(entry.userCode),
            Wire.interval: .string(String(services.configuration.pollingIntervalSeconds)),
            Wire.expiresAt: .string(Self.timestamp(entry.expiresAt)),
        ])
    }

    /// Answers one poll.
    func poll(_ request: HTTPRequest) async -> HTTPResponse {
        guard let fields = RequestFields.parse(request),
            let deviceAuthID = fields[Wire.deviceAuthID], let userCode = fields[Wire.userCode] ?? fields[Wire.userCodeAlias]
        else {
            return OAuthErrorBody.openAI(400, code: Wire.invalidRequest, message: Wire.missingFields)
        }
        switch await services.deviceAuthorizations.poll(deviceAuthID: deviceAuthID, userCode: userCode) {
        case .pending:
            return .json(403, [:])
        case .approved(let grant):
            await services.tokens.register(grant)
            return .json(200, [
                Wire.authorizationCode: .string(grant.authorizationCode),
                Wire.codeChallenge: .string(grant.codeChallenge),
                Wire.codeVerifier: .string(grant.codeVerifier),
            ])
        case .denied:
            return OAuthErrorBody.oauth(401, Wire.declined, Wire.deniedDescription)
        case .expired:
            return .json(403, [Wire.error: [Wire.message: .string(Wire.expiredMessage), Wire.code: .string(Wire.expiredCode)]])
        case .unknown:
            return .json(404, [Wire.error: [Wire.message: .string(Wire.unknownMessage), Wire.code: .string(Wire.unknownCode)]])
        }
    }

    /// `2026-07-21T20:56:56+00:00`: ISO 8601 with an explicit UTC offset, as the real service sends.
    private static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'+00:00'"
        return formatter.string(from: date)
    }

    private enum Wire {
        static let clientID = "client_id"
        static let deviceAuthID = "device_auth_id"
        static let userCode = "user_code"
        static let userCodeAlias = "usercode"
        static let interval = "interval"
        static let expiresAt = "expires_at"
        static let authorizationCode = "authorization_code"
        static let codeChallenge = "code_challenge"
        static let codeVerifier = "code_verifier"
        static let error = "error"
        static let message = "message"
        static let code = "code"
        static let invalidRequest = "invalid_request"
        static let invalidClient = "invalid_client"
        static let declined = "authorization_declined"
        static let deniedDescription = "Denied"
        static let expiredCode = "deviceauth_expired"
        static let expiredMessage = "Device authorization code has expired. Please request a new code."
        static let unknownCode = "deviceauth_not_found"
        static let unknownMessage = "Device authorization not found."
        static let malformedBody = "The request body could not be parsed."
        static let missingClientID = "Missing required parameter: client_id."
        static let unknownClient = "Unknown client_id."
        static let missingFields = "Missing required parameters: device_auth_id and user_code."
    }
}
