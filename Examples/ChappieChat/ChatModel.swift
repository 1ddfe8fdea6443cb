import ChappieSDK
import Combine
import Foundation

/// One line of the conversation as the chat shows it.
struct ChatLine: Identifiable, Equatable {
    enum Role { case user, assistant }

    let id = UUID()
    let role: Role
    var text: String
    /// Host tools that ran for this reply, e.g. "set_reminder: completed".
    var toolNotes: [String] = []
}

/// The chat's state: the lines, the streaming reply, and the client that produces it.
@MainActor
final class ChatModel: ObservableObject {
    @Published private(set) var lines: [ChatLine] = []
    @Published private(set) var isStreaming = false
    @Published private(set) var errorText: String?

    let approvals: ToolApprovals
    private let client: ChappieClient
    private var streamTask: Task<Void, Never>?

    init(configuration: ChappieConfiguration) {
        let approvals = ToolApprovals()
        self.approvals = approvals
        client = Chappie.client(
            configuration: configuration,
            tools: [ReminderTool.tool],
            // Runs off the main actor; waits until the user answers the approval sheet.
            toolApprovalHandler: { request in await approvals.decide(request) }
        )
    }

    /// Sends `text` and streams the reply into a new assistant line.
    func send(_ text: String) {
        let prompt = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !prompt.isEmpty, !isStreaming else { return }
        errorText = nil
        lines.append(ChatLine(role: .user, text: prompt))
        lines.append(ChatLine(role: .assistant, text: ""))
        let index = lines.count - 1
        isStreaming = true
        let client = client
        streamTask = Task {
            do {
                for try await event in client.stream(prompt) {
                    switch event {
                    case .textDelta(let delta):
                        lines[index].text += delta
                    case .toolCallCompleted(let result):
                        lines[index].toolNotes.append("\(result.call.name): \(result.status.rawValue)")
                    default:
                        break
                    }
                }
            } catch is CancellationError {
                // Stopped by the user; the partial reply stays.
            } catch let error as ChappieClientError {
                // A reauthenticationRequired error also moves the auth session to
                // .reauthenticationRequired, and RootView shows the sign-in screen.
                errorText = error.errorDescription
            } catch {
                errorText = error.localizedDescription
            }
            isStreaming = false
        }
    }

    /// Stops the reply being streamed.
    func stop() {
        streamTask?.cancel()
    }
}

/// A host tool the model may call only after the user approves it (policy `.ask`).
enum ReminderTool {
    static let tool = ChappieHostTool(
        name: "set_reminder",
        description: "Creates a reminder in the user's reminders list.",
        inputSchema: [
            "type": "object",
            "properties": ["title": ["type": "string"], "due": ["type": "string", "description": "ISO 8601 date"]],
            "required": ["title"],
        ],
        policy: .ask
    ) { call in
        guard case .string(let title)? = call.argumentsJSON?["title"] else {
            return ChappieToolResult(output: #"{"error":"missing title"}"#)
        }
        // A real app would call EventKit here.
        return ChappieToolResult(output: ChappieJSONValue.object(["created": .bool(true), "title": .string(title)]).jsonString)
    }
}
