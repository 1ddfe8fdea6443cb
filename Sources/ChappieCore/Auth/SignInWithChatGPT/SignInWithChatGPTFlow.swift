import ChappieTransport
import Foundation

/// Runs one Sign in with ChatGPT attempt (SIWC.md §2): discovery, the installation's host id
/// (created and saved before the first sign-in), the loopback listener, the authorize URL handed
/// to the opener, the callback, the issued client id saved before the code exchange, the exchange,
/// and the ID token verified. It returns a credential that nobody has seen yet: the session adopts
/// it (persist before publish).
struct SignInWithChatGPTFlow: Sendable {
    let configuration: ChappieConfiguration
    let transport: any HTTPTransport
    let time: ChappieTimeSource
    let installations: any SIWCInstallationStore

    /// What the caller asked for.
    struct Options: Sendable {
        var appName: String
        var enablePlanUsage: Bool
        var timeout: Duration
        var preferredPort: UInt16?
        var startNewRegistration: Bool
    }

    /// A verified sign-in, not yet saved.
    struct Outcome: Sendable {
        var credential: ChappieCredential
        var registration: SIWCRegistration
        var showsPlanUsageNotice: Bool
    }

    /// Runs the attempt; `open` is called with the authorize URL once the listener is up (a
    /// closure that throws ends the attempt with ``ChappieAuthError/browserUnavailable(_:)``), and
    /// `dismiss` once the callback arrived. Throws ``ChappieAuthError`` or `CancellationError`.
    func run(_ options: Options, open: @Sendable (URL) async throws -> Void, dismiss: @Sendable () async -> Void) async throws -> Outcome {
        let endpoints = configuration.endpoints
        if let violation = endpoints.violation { throw ChappieAuthError.insecureEndpoint(violation) }
        let discovery = try await OpenIDDiscovery.fetch(issuer: endpoints.authIssuer, transport: transport)
        OpenIDDiscovery.remember(discovery, for: endpoints.authIssuer)
        let slot = configuration.keychainAccount
        var installation: SIWCInstallation
        do { installation = try installations.loadOrCreate() }
        catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        let existing = options.startNewRegistration ? nil
            : installation.registration(forSlot: slot).flatMap { $0.issuer == discovery.issuer ? $0 : nil }

        let attemptBox = LockedBox<AuthorizationRequest?>(nil)
        let listener = try LoopbackCallbackListener(preferredPort: options.preferredPort) { request, listener in
            Self.answer(request, listener: listener, attempt: attemptBox.withLock { $0 }, expectedClientID: existing?.clientID,
                        issuer: discovery.issuer)
        }
        defer { listener.close() }
        let attempt = AuthorizationRequest(clientID: existing?.clientID, redirectURI: listener.redirectURI)
        attemptBox.withLock { $0 = attempt }
        let url = attempt.url(.init(
            authorizationEndpoint: discovery.authorizationEndpoint, clientID: existing?.clientID, appName: options.appName,
            hostID: installation.hostID, redirectURI: listener.redirectURI, resource: SIWCTokenEndpoint.resourceIndicator,
            idTokenHint: nil, loginHint: existing?.email, promptConsent: options.enablePlanUsage))
        configuration.logger(.info, "siwc.authorize", ["registration": existing == nil ? "new" : "returning", "port": "\(listener.port)"])
        do { try await open(url) }
        catch let error as ChappieAuthError { throw error }
        catch is CancellationError { throw CancellationError() }
        catch { throw ChappieAuthError.browserUnavailable(Redaction.clean("\(error)")) }

        let callback = try await waitForCallback(listener, timeout: options.timeout)
        await dismiss()
        let parameters: [String: String]
        switch callback {
        case .failed(let error): throw error
        case .callback(let values): parameters = values
        }
        guard let code = parameters[Wire.code] else { throw ChappieAuthError.invalidResponse("the callback has no code") }
        Redaction.register(code)
        let clientID = existing?.clientID ?? parameters[Wire.clientID] ?? ""

        // The issued client id is saved before the exchange, so a failed exchange never leads to
        // a second registration.
        var registration = existing ?? SIWCRegistration(clientID: clientID, issuer: discovery.issuer, slot: slot, subject: nil,
                                                        email: nil, label: installation.distinctLabel(for: nil, excluding: clientID))
        if existing == nil {
            do {
                installation = try installations.update { record in
                    record.registrations.removeAll { $0.clientID == clientID }
                    record.registrations.append(registration)
                }
            } catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        }

        let resource = SIWCTokenEndpoint.resourceIndicator
        let tokenEndpoint = SIWCTokenEndpoint(discovery: discovery, transport: transport, resource: resource)
        let tokens = try await tokenEndpoint.exchange(code: code, clientID: clientID, codeVerifier: attempt.codeVerifier,
                                                      redirectURI: attempt.redirectURI)
        let verifier = IDTokenVerifier(discovery: discovery, transport: transport, time: time)
        let identity = try await verifier.verify(tokens.response.idToken ?? "", clientID: clientID, nonce: attempt.nonce,
                                                 subject: registration.subject)
        let scopes = tokens.scopes ?? []
        let credential = ChappieCredential(
            idToken: tokens.response.idToken ?? "", accessToken: tokens.response.accessToken ?? "",
            refreshToken: tokens.response.refreshToken, expiresIn: tokens.response.expiresIn, obtainedAt: time.now(),
            route: .signInWithChatGPT, clientID: clientID, grantedScopes: scopes)
        let planUsage = scopes.contains(ChappieSignInRoute.planUsageScope)
        registration.subject = identity.subject
        registration.email = identity.email
        registration.label = existing?.label ?? installation.distinctLabel(for: identity.email, excluding: clientID)
        let showsNotice = planUsage && !registration.planUsageNoticeShown
        let saved = registration
        do {
            try installations.update { record in
                record.registrations.removeAll { $0.clientID == saved.clientID }
                record.registrations.append(saved)
                record.activeSlot = slot
            }
        } catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        configuration.logger(.info, "siwc.signed_in", ["plan_usage": planUsage ? "enabled" : "not_granted"])
        return Outcome(credential: credential, registration: saved, showsPlanUsageNotice: showsNotice)
    }

    /// Waits for the listener's outcome, at most `timeout` (the listener is closed either way).
    private func waitForCallback(_ listener: LoopbackCallbackListener, timeout: Duration) async throws -> LoopbackCallbackListener.Outcome {
        try await withThrowingTaskGroup(of: LoopbackCallbackListener.Outcome?.self) { group in
            group.addTask { try await listener.awaitOutcome() }
            group.addTask { [time] in
                try await time.sleep(timeout)
                return nil
            }
            defer { group.cancelAll(); listener.close() }
            guard let first = try await group.next() else { throw CancellationError() }
            guard let outcome = first else { throw ChappieAuthError.callbackTimedOut }
            return outcome
        }
    }

    /// Answers one request to the listener (SIWC.md §2.4): only `GET /auth/callback` with the
    /// exact `Host` and no foreign `Origin`; exactly one `state`, compared in constant time (a
    /// wrong one is answered 400 and the attempt goes on); one accepted callback per attempt.
    static func answer(_ request: LoopbackCallbackListener.Request, listener: LoopbackCallbackListener,
                       attempt: AuthorizationRequest?, expectedClientID: String?, issuer: String) -> LoopbackCallbackListener.Reply {
        let ownHost = "\(LoopbackCallbackListener.Wire.host):\(listener.port)"
        guard request.host == ownHost else { return .init(status: 421, page: CallbackPage.rejected) }
        if let origin = request.origin, origin != "http://\(ownHost)" { return .init(status: 403, page: CallbackPage.rejected) }
        guard request.path == LoopbackCallbackListener.Wire.callbackPath else { return .init(status: 404, page: CallbackPage.rejected) }
        guard request.method == .get else { return .init(status: 405, page: CallbackPage.rejected) }
        guard let attempt else { return .init(status: 400, page: CallbackPage.rejected) }
        let states = request.values(Wire.state)
        guard states.count == 1, constantTimeEqual(states[0], attempt.state) else { return .init(status: 400, page: CallbackPage.rejected) }
        guard !listener.hasOutcome else { return .init(status: 409, page: CallbackPage.used) }
        if let iss = request.values(Wire.iss).first, iss != issuer {
            return .init(status: 400, page: CallbackPage.denied, outcome: .failed(.invalidResponse("the callback names another issuer")))
        }
        if let error = request.values(Wire.error).first {
            let failure: ChappieAuthError = error == Wire.accessDenied ? .consentDenied
                : .authorizationFailed(code: String(Redaction.clean(error, maximumBytes: 64).prefix(64)))
            return .init(status: 200, page: CallbackPage.denied, outcome: .failed(failure))
        }
        let codes = request.values(Wire.code)
        guard codes.count == 1, !codes[0].isEmpty else { return .init(status: 400, page: CallbackPage.rejected) }
        let clientIDs = request.values(Wire.clientID)
        var parameters = [Wire.code: codes[0]]
        if let expectedClientID {
            if let returned = clientIDs.first, clientIDs.count > 1 || returned != expectedClientID {
                return .init(status: 400, page: CallbackPage.denied, outcome: .failed(.clientMismatch))
            }
        } else {
            guard clientIDs.count == 1, isIssuedClientID(clientIDs[0]) else {
                return .init(status: 400, page: CallbackPage.denied, outcome: .failed(.registrationIncomplete))
            }
            parameters[Wire.clientID] = clientIDs[0]
        }
        return .init(status: 200, page: CallbackPage.received, outcome: .callback(parameters))
    }

    /// `^[A-Za-z0-9_-]{1,200}$` and not `dynamic_agent_client` (OpenAI's reference code).
    static func isIssuedClientID(_ text: String) -> Bool {
        guard (1...200).contains(text.utf8.count), text != AuthorizationRequest.Wire.dynamicClient else { return false }
        return text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F || byte == 0x2D
        }
    }

    /// Compares two strings in time that depends only on their lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    private enum Wire {
        static let code = "code"
        static let state = "state"
        static let clientID = "client_id"
        static let error = "error"
        static let accessDenied = "access_denied"
        static let iss = "iss"
    }
}
