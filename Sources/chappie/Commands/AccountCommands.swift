import ChappieSDK
import Foundation

/// `login`, `logout` and `status`.
@MainActor
enum AccountCommands {
    /// Signs in with the device-code flow. Throws ``ChappieAuthError``.
    /// Before the flow starts, checks that the sign-in can be saved (``CredentialFolderCheck``),
    /// and says so when a sign-in is already stored (the new one replaces it).
    static func login(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        try CredentialFolderCheck.ensureWritable(environment.configuration.credentialStore)
        let session = CLIClients.authSession(configuration: environment.configuration)
        await session.reload()
        if session.state == .signedIn, !arguments.flag("json") {
            let email = session.accountInfo?.email.map { " as " + Terminal.sanitizedLine($0) } ?? ""
            Terminal.error(Terminal.dim("Already signed in\(email); signing in again replaces that sign-in."))
        }
        if arguments.flag("siwc") {
            try await SignInWithChatGPTPresenter.signIn(session, arguments, drivesRedirect: environment.emulator != nil)
            return
        }
        try await SignInPresenter.signIn(session, json: arguments.flag("json"))
    }

    /// Revokes and deletes the stored credential; says so in a line, or with `--json` as
    /// `{"event":"signed_out"}` or `{"event":"not_signed_in"}`. Throws ``ChappieAuthError``.
    static func logout(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let session = CLIClients.authSession(configuration: environment.configuration)
        await session.reload()
        let wasSignedIn = session.state != .signedOut
        // A Sign in with ChatGPT sign-in says whether the server confirmed the disconnect.
        let signInWithChatGPT = session.accountInfo?.planUsageEnabled != nil
        let result = try await session.signOutReportingRevocation()
        CredentialFolderCheck.removeEmptyFolders(environment.configuration.credentialStore)
        if arguments.flag("json") {
            var object: [String: ChappieJSONValue] = ["event": .string(wasSignedIn ? "signed_out" : "not_signed_in")]
            if wasSignedIn, signInWithChatGPT { object["remote_disconnect_confirmed"] = .bool(result.remoteDisconnectConfirmed) }
            Terminal.jsonLine(ChappieJSONValue.object(object))
        } else {
            Terminal.line(wasSignedIn ? "Signed out." : "Not signed in.")
            if wasSignedIn, signInWithChatGPT, let notice = result.unconfirmedNotice { Terminal.line(notice) }
        }
    }

    /// Shows the state the SDK would act on, and whose credential it is. A stored credential is
    /// checked the way the next command would use it — renewed when due, sent to the backend
    /// once — so a session the server no longer honours shows as needing sign-in, not as signed
    /// in. When the server cannot be reached, the stored state is shown with a note. Returns the
    /// exit status: success when signed in, sign-in needed otherwise.
    static func status(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws -> ChappieCommand.ExitStatus {
        let session = CLIClients.authSession(configuration: environment.configuration)
        await session.reload()
        var unchecked: String?
        if session.state == .signedIn, session.accountInfo?.planUsageEnabled == nil {
            do {
                _ = try await CLIClients.client(configuration: environment.configuration).usageLimits()
            } catch let error as ChappieClientError where !error.requiresReauthentication {
                unchecked = error.errorDescription ?? "request failed"
            } catch is ChappieClientError {
                // The credential manager now knows the session cannot be renewed; read that state.
            }
            await session.reload()
        }
        let info = session.accountInfo
        let exitStatus: ChappieCommand.ExitStatus = session.state == .signedIn ? .success : .signInNeeded
        if arguments.flag("json") {
            var object: [String: ChappieJSONValue] = [
                "state": .string("\(session.state)"),
                "email": info?.email.map(ChappieJSONValue.string) ?? .null,
                "plan": info?.plan.map { .string($0.rawValue) } ?? .null,
                "account_id": info?.accountID.map(ChappieJSONValue.string) ?? .null,
            ]
            if session.state == .signedIn { object["checked"] = .bool(unchecked == nil && info?.planUsageEnabled == nil) }
            if let planUsage = info?.planUsageEnabled {
                object["route"] = "sign_in_with_chatgpt"
                object["plan_usage_enabled"] = .bool(planUsage)
                object["registrations"] = .array(((try? session.signInWithChatGPTRegistrations()) ?? []).map { registration in
                    .object(["label": .string(registration.label), "account": .string(registration.account),
                             "client_id": .string(registration.clientID), "current": .bool(registration.isCurrent)])
                })
            }
            if let unchecked { object["check_error"] = .string(unchecked) }
            Terminal.jsonLine(ChappieJSONValue.object(object))
            return exitStatus
        }
        // The email and account id come from the sign-in server's token: sanitized.
        let email = info?.email.map { " as " + Terminal.sanitizedLine($0) } ?? ""
        switch session.state {
        case .signedIn:
            Terminal.line("Signed in\(email)\(info?.plan.map { " on the \(Terminal.sanitizedLine($0.displayName)) plan" } ?? "").")
            if let account = info?.accountID { Terminal.line("Account: " + Terminal.sanitizedLine(account)) }
            if let planUsage = info?.planUsageEnabled {
                Terminal.line("Signed in with Sign in with ChatGPT; ChatGPT plan usage is "
                    + (planUsage ? "enabled." : "not enabled (run `chappie login --siwc --enable-plan-usage`)."))
                for registration in (try? session.signInWithChatGPTRegistrations()) ?? [] {
                    Terminal.line(Terminal.dim("Registration: \(Terminal.sanitizedLine(registration.label)) (account slot "
                        + "\(Terminal.sanitizedLine(registration.account)))\(registration.isCurrent ? ", current" : "")"))
                }
            }
            if let unchecked { Terminal.line(Terminal.dim("Not checked with the server: " + Terminal.sanitizedLine(unchecked))) }
        case .reauthenticationRequired:
            Terminal.line("Signed in\(email), but the session can no longer be renewed: run `\(ChappieCommand.loginCommand)`.")
        case .signedOut, .signingIn, .restoring:
            // Say why when the saved sign-in exists but cannot be used (an unsafe folder or file).
            if let error = session.lastError {
                Terminal.error("chappie: " + Terminal.sanitizedLine(error.errorDescription ?? "the saved sign-in cannot be read"))
            }
            Terminal.line("Not signed in. Run `\(ChappieCommand.loginCommand)`.")
        }
        return exitStatus
    }

    /// `chappie login` with the options of `arguments` that choose the credential slot and the
    /// server (`--account`, `--auth-url`, `--backend-url`), each shell-quoted when it needs it.
    nonisolated static func loginCommand(for arguments: ParsedArguments) -> String {
        var words = ["chappie", "login"]
        for name in ["account", "auth-url", "backend-url"] {
            guard let value = arguments.option(name) else { continue }
            let plain = value.allSatisfy { $0.isLetter || $0.isNumber || "-_.:/@%+=".contains($0) } && !value.isEmpty
            words += ["--" + name, plain ? value : "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"]
        }
        return Terminal.sanitizedLine(words.joined(separator: " "))
    }

    /// Makes sure a credential exists; with the emulator, signs in automatically. Throws
    /// ``SavedSignInUnusable`` when a saved sign-in exists but cannot be read (the reason `status`
    /// shows), ``ChappieClientError/reauthenticationRequired(_:)`` when it can no longer be
    /// renewed, ``ChappieClientError/missingCredential`` when there is none, or the emulator
    /// sign-in's ``ChappieAuthError``.
    static func ensureSignedIn(_ environment: CLIEnvironment, json: Bool) async throws {
        let session = CLIClients.authSession(configuration: environment.configuration)
        await session.reload()
        guard session.state != .signedIn else { return }
        guard environment.emulator != nil else {
            // Say what `status` says: why a saved sign-in cannot be used, or cannot be renewed.
            switch (session.state, session.lastError) {
            case (.reauthenticationRequired, .reauthenticationRequired(let reason)?):
                throw ChappieClientError.reauthenticationRequired(reason)
            case (.signedOut, let reason?) where !reason.requiresReauthentication:
                throw SavedSignInUnusable(reason: reason)
            default:
                throw ChappieClientError.missingCredential
            }
        }
        if let emulator = environment.emulator, environment.signsInWithChatGPT {
            if !json { Terminal.error(Terminal.dim("Signing in to the emulator with Sign in with ChatGPT (its registration, approved at once)…")) }
            try await EmulatorSignInWithChatGPT.signIn(environment.configuration, emulator: emulator)
            await session.reload()
            return
        }
        if !json { Terminal.error(Terminal.dim("Signing in to the emulator with the device-code flow…")) }
        try await session.startDeviceCodeSignIn()
    }
}

/// A saved sign-in exists but cannot be used (an unsafe file or folder mode, a file that is not
/// JSON): the commands that need it say why, as `status` does, and exit 3 (sign-in needed).
struct SavedSignInUnusable: Error, LocalizedError {
    /// Why the saved sign-in could not be read.
    var reason: ChappieAuthError

    var errorDescription: String? {
        "Not signed in: " + (reason.errorDescription ?? "the saved sign-in cannot be read")
    }
}
