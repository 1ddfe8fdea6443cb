import ChappieEmulator
import ChappieSDK
import Foundation

/// Scripting the emulator from an app's tests with only `import ChappieSDKTesting`: thin wrappers
/// over ``/ChappieEmulator/ChappieEmulator/enqueue(_:)`` and the device-flow controls.
extension ChappieEmulator {
    /// Queues what the emulated model does for its next responses, in order: one
    /// ``/ChappieEmulator/ChappieEmulator/ScriptedReply`` per `POST /codex/responses` (`.text`, `.functionCall`,
    /// `.failed`, `.incomplete`, `.httpError`, `.disconnect`, `.stall`, `.slowText`,
    /// `.usageLimitReached`). With nothing queued the model echoes the last user message.
    public func scriptReplies(_ replies: ScriptedReply...) async {
        for reply in replies { await enqueue(reply) }
    }

    /// Queues a model turn that calls the host tool `name` with `arguments` (a JSON object); the
    /// turn after the tool result answers by itself unless more replies are queued.
    public func scriptToolCall(_ name: String, arguments: ChappieJSONValue = [:]) async {
        await enqueue(.functionCall(name: name, arguments: arguments.jsonString))
    }

    /// Waits for the next device code a sign-in requests and approves it, as if the user clicked
    /// Approve. Use with an emulator whose `autoApproveAfterPolls` is nil.
    /// - Returns: the approved user code, or nil if the emulator shut down first.
    @discardableResult
    public func approveNextSignIn() async -> String? {
        guard let userCode = await nextDeviceCode() else { return nil }
        return await approve(userCode: userCode) ? userCode : nil
    }

    /// Waits for the next device code a sign-in requests and denies it; that sign-in then fails
    /// with ``/ChappieSDK/ChappieAuthError/deviceCodeDenied``. Use with an emulator whose
    /// `autoApproveAfterPolls` is nil.
    /// - Returns: the denied user code, or nil if the emulator shut down first.
    @discardableResult
    public func denyNextSignIn() async -> String? {
        guard let userCode = await nextDeviceCode() else { return nil }
        return await deny(userCode: userCode) ? userCode : nil
    }
}
