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

    /// Shows whether a credential is stored and whose it is.
    static func status(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let session = Chappie.authSession(configuration: environment.configuration)
        await session.reload()
        let info = session.accountInfo
        if arguments.flag("json") {
            let object: [String: ChappieJSONValue] = [
                "state": .string("\(session.state)"),
                "email": info?.email.map(ChappieJSONValue.string) ?? .null,
                "plan": info?.plan.map { .string($0.rawValue) } ?? .null,
                "account_id": info?.accountID.map(ChappieJSONValue.string) ?? .null,
            ]
            Terminal.line(ChappieJSONValue.object(object).jsonString)
            return
        }
        switch session.state {
        case .signedIn:
            Terminal.line("Signed in\(info?.email.map { " as \($0)" } ?? "")\(info?.plan.map { " on the \($0.displayName) plan" } ?? "").")
            if let account = info?.accountID { Terminal.line("Account: \(account)") }
        case .reauthenticationRequired:
            Terminal.line("Signed in, but the session can no longer be renewed: run `chappie login`.")
        case .signedOut, .signingIn:
            // Say why when the saved sign-in exists but cannot be used (an unsafe folder or file).
            if let error = session.lastError { Terminal.error("chappie: \(error.errorDescription ?? "the saved sign-in cannot be read")") }
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
