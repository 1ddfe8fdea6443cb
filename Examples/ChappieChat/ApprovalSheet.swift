import ChappieSDK
import SwiftUI

/// Asks the user whether the model may run a host tool with the `.ask` policy.
@MainActor
struct ApprovalSheet: View {
    let pending: ToolApprovals.Pending
    @ObservedObject var approvals: ToolApprovals

    var body: some View {
        VStack(alignment: .leading, spacing: 16) {
            Text("Allow \(pending.request.call.name)?")
                .font(.title2.bold())
            Text(pending.request.toolDescription)
                .foregroundColor(.secondary)
            Text(pending.request.call.rawArguments)
                .font(.system(.footnote, design: .monospaced))
                .padding(8)
                .frame(maxWidth: .infinity, alignment: .leading)
                .background(RoundedRectangle(cornerRadius: 8).fill(Color.secondary.opacity(0.1)))
            HStack {
                Button("Deny", role: .cancel) {
                    approvals.answer(pending, with: .denied(reason: "The user declined this action."))
                }
                Spacer()
                Button("Allow") {
                    approvals.answer(pending, with: .approved())
                }
                .buttonStyle(.borderedProminent)
            }
        }
        .padding(24)
    }
}
