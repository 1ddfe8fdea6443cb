import ChappieSDK
import Combine
import Foundation

/// The approval requests waiting for the user, and the bridge from the client's approval
/// handler (called off the main actor, awaiting an answer) to the approval sheet.
@MainActor
final class ToolApprovals: ObservableObject {
    /// One request and the handler call waiting for its answer.
    struct Pending: Identifiable {
        let id = UUID()
        let request: ChappieApprovalRequest
        fileprivate let answer: CheckedContinuation<ChappieApprovalDecision, Never>
    }

    /// Requests in arrival order; the sheet shows the first.
    @Published private(set) var queue: [Pending] = []

    /// Called by the client's tool approval handler: suspends until ``answer(_:with:)``.
    func decide(_ request: ChappieApprovalRequest) async -> ChappieApprovalDecision {
        await withCheckedContinuation { continuation in
            queue.append(Pending(request: request, answer: continuation))
        }
    }

    /// Answers `pending` and removes it from the queue.
    func answer(_ pending: Pending, with decision: ChappieApprovalDecision) {
        guard let index = queue.firstIndex(where: { $0.id == pending.id }) else { return }
        queue.remove(at: index).answer.resume(returning: decision)
    }
}
