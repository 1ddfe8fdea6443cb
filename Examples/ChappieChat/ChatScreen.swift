import ChappieSDK
import SwiftUI

/// The signed-in screen: the conversation, a text field, and the approval sheet.
@MainActor
struct ChatScreen: View {
    @ObservedObject var authSession: ChappieAuthSession
    @StateObject private var model: ChatModel
    @State private var draft = ""

    init(authSession: ChappieAuthSession, configuration: ChappieConfiguration) {
        self.authSession = authSession
        _model = StateObject(wrappedValue: ChatModel(configuration: configuration))
    }

    var body: some View {
        VStack(spacing: 0) {
            ScrollView {
                LazyVStack(alignment: .leading, spacing: 12) {
                    ForEach(model.lines) { line in
                        ChatBubble(line: line)
                    }
                    if let error = model.errorText {
                        Text(error).font(.footnote).foregroundColor(.red)
                    }
                }
                .padding()
            }
            Divider()
            HStack {
                TextField("Message", text: $draft)
                    .textFieldStyle(.roundedBorder)
                    .onSubmit(send)
                if model.isStreaming {
                    Button("Stop") { model.stop() }
                } else {
                    Button("Send", action: send)
                        .disabled(draft.trimmingCharacters(in: .whitespaces).isEmpty)
                }
            }
            .padding()
        }
        .toolbar {
            ToolbarItem {
                Menu(authSession.accountInfo?.email ?? "Account") {
                    Button("Sign out", role: .destructive) {
                        Task { try? await authSession.signOut() }
                    }
                }
            }
        }
        .sheet(item: currentApproval) { pending in
            ApprovalSheet(pending: pending, approvals: model.approvals)
        }
    }

    private func send() {
        model.send(draft)
        draft = ""
    }

    /// The first waiting approval, as the sheet's item. Dismissing the sheet denies it.
    private var currentApproval: Binding<ToolApprovals.Pending?> {
        Binding(
            get: { model.approvals.queue.first },
            set: { newValue in
                if newValue == nil, let pending = model.approvals.queue.first {
                    model.approvals.answer(pending, with: .denied(reason: "The user dismissed the request."))
                }
            }
        )
    }
}

/// One message, the user's on the right.
@MainActor
struct ChatBubble: View {
    let line: ChatLine

    var body: some View {
        HStack {
            if line.role == .user { Spacer(minLength: 40) }
            VStack(alignment: .leading, spacing: 4) {
                Text(line.text.isEmpty ? "…" : line.text)
                    .textSelection(.enabled)
                ForEach(line.toolNotes, id: \.self) { note in
                    Label(note, systemImage: "wrench.and.screwdriver").font(.caption).foregroundColor(.secondary)
                }
            }
            .padding(10)
            .background(RoundedRectangle(cornerRadius: 12).fill(line.role == .user ? Color.accentColor.opacity(0.2) : Color.secondary.opacity(0.1)))
            if line.role == .assistant { Spacer(minLength: 40) }
        }
    }
}
