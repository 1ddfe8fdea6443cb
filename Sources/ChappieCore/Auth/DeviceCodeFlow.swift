import ChappieTransport
import Foundation

/// What the user-code request returned (PROTOCOL §1.1).
struct DeviceCodeGrant: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let deviceAuthID: String
    let code: ChappieDeviceCode
    /// When polling stops: the code's expiry, and never later than 15 minutes after the request.
    let deadline: Date
    var description: String { "DeviceCodeGrant(userCode: \(code.userCode), deviceAuthID: [redacted])" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["code": code, "deadline": deadline, "deviceAuthID": "[redacted]"]) }
}

/// The device-code sign-in of PROTOCOL §1: request a user code, poll until the user approves,
/// then exchange the authorization code with the server-issued PKCE verifier.
///
/// Polling honours the server's `interval` (a JSON string or number, default 5 s, at least 1 s),
/// treats 403/404 without a terminal error as pending, backs off on 429 (`Retry-After`: finite,
/// non-negative seconds, never less than the interval) and on transient failures, and stops at
/// the code's lifetime (at most 15 minutes).
struct DeviceCodeFlow: Sendable {
    let endpoints: ChappieEndpoints
    let transport: any HTTPTransport
    let time: ChappieTimeSource

    /// Asks for a user code. Throws ``ChappieAuthError``: `.insecureEndpoint` before anything is
    /// sent when the endpoints may not carry tokens (``ChappieEndpoints/validate()``).
    func requestCode() async throws -> DeviceCodeGrant {
        if let violation = endpoints.violation { throw ChappieAuthError.insecureEndpoint(violation) }
        let body: ChappieJSONValue = [Wire.clientID: .string(OAuthClient.id)]
        let request = HTTPRequest(method: .post, url: endpoints.deviceUserCode,
                                  headers: ["Content-Type": "application/json", "Accept": "application/json"],
                                  body: Data(body.jsonString.utf8), idleTimeout: 30, deadline: Wire.requestDeadline)
        var attempt = 0
        while true {
            attempt += 1
            let response: HTTPResponse
            do {
                response = try await transport.send(request, maximumBytes: 1 << 20)
            } catch let error as TransportError {
                // A server that took the request and never answered is not asked again.
                guard attempt < Policy.requestAttempts, error.isRetryable else {
                    throw ChappieAuthError.network(error.message(at: request.url))
                }
                try await time.sleep(.seconds(interval: Policy.transientDelay * Double(attempt)))
                continue
            }
            let status = response.head.status
            if status == 404 { throw ChappieAuthError.deviceCodeLoginDisabled }
            if (status == 429 || status >= 500) && attempt < Policy.requestAttempts {
                try await time.sleep(.seconds(interval: Policy.transientDelay * Double(attempt)))
                continue
            }
            guard (200..<300).contains(status) else {
                let error = ServerErrorBody(data: response.body, status: status)
                throw ChappieAuthError.tokenExchangeFailed(status: status, code: error.code)
            }
            return try parseGrant(response.body)
        }
    }

    /// Polls until the user approves, then exchanges the code. Throws ``ChappieAuthError`` or
    /// `CancellationError`.
    func awaitCredential(for grant: DeviceCodeGrant) async throws -> ChappieCredential {
        if let violation = endpoints.violation { throw ChappieAuthError.insecureEndpoint(violation) }
        let body: ChappieJSONValue = [Wire.deviceAuthID: .string(grant.deviceAuthID), Wire.userCode: .string(grant.code.userCode)]
        let request = HTTPRequest(method: .post, url: endpoints.deviceToken,
                                  headers: ["Content-Type": "application/json", "Accept": "application/json"],
                                  body: Data(body.jsonString.utf8), idleTimeout: 30, deadline: Wire.requestDeadline)
        var wait = grant.code.pollingInterval
        var transientFailures = 0
        while true {
            let remaining = grant.deadline.timeIntervalSince(time.now())
            if remaining <= 0 { throw ChappieAuthError.deadlineExceeded }
            try await time.sleep(.seconds(interval: min(wait, remaining)))
            if time.now() >= grant.deadline { throw ChappieAuthError.deadlineExceeded }
            wait = grant.code.pollingInterval
            let response: HTTPResponse
            do {
                response = try await transport.send(request, maximumBytes: 1 << 20)
            } catch let error as TransportError {
                transientFailures += 1
                if transientFailures > Policy.maximumTransientPollFailures { throw ChappieAuthError.network(error.message(at: request.url)) }
                wait = min(grant.code.pollingInterval * pow(2, Double(transientFailures)), Policy.maximumPollWait)
                continue
            }
            let status = response.head.status
            switch status {
            case 200..<300:
                guard let object = (try? ChappieJSONValue(jsonData: response.body))?.objectValue,
                      let code = object[Wire.authorizationCode]?.stringValue, !code.isEmpty,
                      let verifier = object[Wire.codeVerifier]?.stringValue, !verifier.isEmpty
                else { throw ChappieAuthError.invalidResponse("the approval lacks authorization_code or code_verifier") }
                Redaction.register(code)
                Redaction.register(verifier)
                return try await TokenEndpoint(endpoints: endpoints, transport: transport)
                    .exchange(authorizationCode: code, codeVerifier: verifier, now: time.now())
            case 403, 404:
                let error = ServerErrorBody(data: response.body, status: status)
                if let terminal = Self.terminalError(error, status: status, pendingAllowed: true) { throw terminal }
                transientFailures = 0
            case 429:
                // Only a finite, non-negative number of seconds counts: `nan` once made a busy loop.
                let retryAfter = ChappieRateLimitBackoffPolicy.retryAfterSeconds(response.head.header("retry-after"))
                    ?? grant.code.pollingInterval * 2
                wait = min(max(retryAfter, grant.code.pollingInterval), Policy.maximumPollWait)
            case 500...:
                transientFailures += 1
                if transientFailures > Policy.maximumTransientPollFailures {
                    throw ChappieAuthError.network("the sign-in server kept failing (HTTP \(status))")
                }
                wait = min(grant.code.pollingInterval * pow(2, Double(transientFailures)), Policy.maximumPollWait)
            default:
                let error = ServerErrorBody(data: response.body, status: status)
                throw Self.terminalError(error, status: status, pendingAllowed: false)
                    ?? ChappieAuthError.tokenExchangeFailed(status: status, code: error.code)
            }
        }
    }

    /// Classifies a poll error body: expired, denied, or (when allowed) still pending (nil).
    static func terminalError(_ error: ServerErrorBody, status: Int, pendingAllowed: Bool) -> ChappieAuthError? {
        let text = [error.code, error.type, error.message].compactMap { $0?.lowercased() }.joined(separator: " ")
        if text.contains("expired") { return .deviceCodeExpired }
        if text.contains("declined") || text.contains("denied") || text.contains("access_denied") { return .deviceCodeDenied }
        return pendingAllowed ? nil : .tokenExchangeFailed(status: status, code: error.code)
    }

    /// Reads a user-code response (PROTOCOL §1.1). Throws ``ChappieAuthError/invalidResponse(_:)``.
    func parseGrant(_ data: Data) throws -> DeviceCodeGrant {
        guard let object = (try? ChappieJSONValue(jsonData: data))?.objectValue,
              let deviceAuthID = object[Wire.deviceAuthID]?.stringValue, !deviceAuthID.isEmpty,
              let userCode = (object[Wire.userCode] ?? object[Wire.userCodeAlias])?.stringValue, !userCode.isEmpty
        else { throw ChappieAuthError.invalidResponse("the user-code response lacks device_auth_id or user_code") }
        Redaction.register(deviceAuthID)
        let interval = object[Wire.interval].flatMap { $0.doubleValue ?? $0.stringValue.flatMap(Double.init) }
        // A finite interval from 1 s to the longest poll wait; `nan` or `inf` falls back to the default.
        let pollingInterval = min(max(Policy.minimumInterval, interval.flatMap { $0.isFinite ? $0 : nil } ?? Policy.defaultInterval),
                                  Policy.maximumPollWait)
        let now = time.now()
        let latest = now.addingTimeInterval(Policy.maximumLifetime)
        var expiresAt = latest
        if let text = object[Wire.expiresAt]?.stringValue, let date = Self.parseDate(text) { expiresAt = min(date, latest) }
        let code = ChappieDeviceCode(userCode: userCode, verificationURL: endpoints.verification,
                                     expiresAt: expiresAt, pollingInterval: pollingInterval)
        return DeviceCodeGrant(deviceAuthID: deviceAuthID, code: code, deadline: expiresAt)
    }

    private static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// Timing rules of the flow, with their reasons.
    enum Policy {
        /// The server's default when `interval` is absent or unreadable (PROTOCOL §1.1, 3rd-party clients).
        static let defaultInterval: TimeInterval = 5
        /// Never poll faster than once a second, whatever the server says.
        static let minimumInterval: TimeInterval = 1
        /// Codex gives up after 15 minutes (PROTOCOL §1.2).
        static let maximumLifetime: TimeInterval = 15 * 60
        /// Longest wait between polls after back-off.
        static let maximumPollWait: TimeInterval = 60
        /// Consecutive network/5xx poll failures tolerated before giving up.
        static let maximumTransientPollFailures = 5
        /// Attempts at the user-code request.
        static let requestAttempts = 3
        /// Base delay between user-code attempts, in seconds.
        static let transientDelay: TimeInterval = 1
    }

    private enum Wire {
        /// Seconds one device-code request (the code, or one poll) may take, however slowly it answers.
        static let requestDeadline: TimeInterval = 60
        static let clientID = "client_id"
        static let deviceAuthID = "device_auth_id"
        static let userCode = "user_code"
        static let userCodeAlias = "usercode"
        static let interval = "interval"
        static let expiresAt = "expires_at"
        static let authorizationCode = "authorization_code"
        static let codeVerifier = "code_verifier"
    }
}
