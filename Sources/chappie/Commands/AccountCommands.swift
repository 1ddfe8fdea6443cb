import ChappieSDK
import Foundation

/// `login`, `logout` and `status`.
@MainActor
enum AccountCommands {
    /// Signs in with the device-code flow. Throws ``ChappieAuthError``.
    static func login(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let session = Chappie.authSession(configuration: environment.configuration)
        try await SignInPresenter.signIn(session, json: arguments.flag("json"))
    }

    /// Revokes and deletes the stored credential. Throws ``ChappieAuthError``.
    static func logout(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let session = Chappie.authSession(configuration: environment.configuration)
        await session.reload()
        let wasSignedIn = session.state != .signedOut
        try await session.signOut()
        Terminal.line(wasSignedIn ? "Signed out." : "Not signed in.")
    }

    /// Shows the state the SDK would act on, and whose credential it is. A stored credential is
    /// checked the way the next command would use it — renewed when due, sent to the backend
    /// once — so a session the server no longer honours shows as needing sign-in, not as signed
    /// in. When the server cannot be reached, the stored state is shown with a note.
    static func status(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let session = Chappie.authSession(configuration: environment.configuration)
        await session.reload()
        var unchecked: String?
        if session.state == .signedIn {
            do {
                _ = try await Chappie.client(configuration: environment.configuration).usageLimits()
            } catch let error as ChappieClientError where !error.requiresReauthentication {
                unchecked = error.errorDescription ?? "request failed"
            } catch is ChappieClientError {
                // The credential manager now knows the session cannot be renewed; read that state.
            }
            await session.reload()
        }
        let info = session.accountInfo
        if arguments.flag("json") {
            var object: [String: ChappieJSONValue] = [
                "state": .string("\(session.state)"),
                "email": info?.email.map(ChappieJSONValue.string) ?? .null,
                "plan": info?.plan.map { .string($0.rawValue) } ?? .null,
                "account_id": info?.accountID.map(ChappieJSONValue.string) ?? .null,
            ]
            if session.state == .signedIn { object["checked"] = .bool(unchecked == nil) }
            if let unchecked { object["check_error"] = .string(unchecked) }
            Terminal.line(ChappieJSONValue.object(object).jsonString)
            return
        }
        // The email and account id come from the sign-in server's token: sanitized.
        let email = info?.email.map { " as " + Terminal.sanitizedLine($0) } ?? ""
        switch session.state {
        case .signedIn:
            Terminal.line("Signed in\(email)\(info?.plan.map { " on the \(Terminal.sanitizedLine($0.displayName)) plan" } ?? "").")
            if let account = info?.accountID { Terminal.line("Account: " + Terminal.sanitizedLine(account)) }
            if let unchecked { Terminal.line(Terminal.dim("Not checked with the server: " + Terminal.sanitizedLine(unchecked))) }
        case .reauthenticationRequired:
            Terminal.line("Signed in\(email), but the session can no longer be renewed: run `chappie login`.")
        case .signedOut, .signingIn, .restoring:
            // Say why when the saved sign-in exists but cannot be used (an unsafe folder or file).
            if let error = session.lastError {
                Terminal.error("chappie: " + Terminal.sanitizedLine(error.errorDescription ?? "the saved sign-in cannot be read"))
            }
            Terminal.line("Not signed in. Run `chappie login`.")
        }
    }

    /// Makes sure a credential exists; with the emulator, signs in automatically.
    static func ensureSignedIn(_ environment: CLIEnvironment, json: Bool) async throws {
        let session = Chappie.authSession(configuration: environment.configuration)
        await session.reload()
        guard session.state != .signedIn else { return }
        guard environment.emulator != nil else { throw ChappieClientError.missingCredential }
        if !json { Terminal.error(Terminal.dim("Signing in to the emulator with the device-code flow…")) }
        try await session.startDeviceCodeSignIn()
    }
}
