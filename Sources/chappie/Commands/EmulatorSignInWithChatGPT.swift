import ChappieEmulator
@_spi(ChappieTesting) import ChappieCore
import Foundation

/// A Sign in with ChatGPT sign-in on the in-process emulator without the browser: the emulator
/// registers the app and issues a live token set (as its consent page would after "Approve"),
/// and the credential is stored in the configuration's slot. Used by `--emulator --siwc` and
/// `demo --siwc` until the CLI drives the loopback sign-in itself; never against a real server.
enum EmulatorSignInWithChatGPT {
    /// Signs `configuration`'s slot in with tokens `emulator` issues (plan usage granted).
    /// Throws the credential store's error.
    static func signIn(_ configuration: ChappieConfiguration, emulator: ChappieEmulator) async throws {
        let tokens = await emulator.issueSignInWithChatGPTTokens(planUsage: true)
        let credential = ChappieCredential(
            idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            expiresIn: TimeInterval(tokens.expiresIn), obtainedAt: Date(), route: .signInWithChatGPT, clientID: tokens.clientID,
            grantedScopes: tokens.scope.split(separator: " ").map(String.init))
        try await configuration.credentialStore.saveCredential(credential, for: configuration.credentialKey)
    }
}
