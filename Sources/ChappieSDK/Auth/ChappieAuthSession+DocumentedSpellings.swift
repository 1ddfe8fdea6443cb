/// The published documentation's spellings that differ from the SDK's own (issue 17): kept small,
/// each forwarding to the SDK's API.
extension ChappieAuthSession {
    /// Signs out without waiting, as the published documentation spells it
    /// (`authSession.signOut()` in a button action or another synchronous context).
    ///
    /// Starts ``signOut()->()`` (revokes the refresh token best-effort, deletes this
    /// configuration's credential only) and returns at once; ``state`` becomes `.signedOut` when
    /// it is done, and a failure is left in ``lastError`` instead of being thrown. In an `async`
    /// context, `try await authSession.signOut()` is the same call that waits and throws.
    /// - Returns: the running sign-out, for a caller that wants to wait for it after all.
    @discardableResult
    public func signOut() -> Task<Void, Never> {
        Task { @MainActor in
            // The failure is already recorded in lastError by the throwing sign-out.
            try? await self.signOut()
        }
    }
}
