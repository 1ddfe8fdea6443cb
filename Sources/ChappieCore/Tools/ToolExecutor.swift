import ChappieTransport
import Foundation

/// Runs the function calls of one response: applies each tool's policy, asks for approval,
/// runs handlers concurrently, and produces one output per call id, in call order.
struct ToolExecutor: Sendable {
    let tools: [String: ChappieHostTool]
    let declaredNames: Set<String>
    let approvalHandler: ChappieToolApprovalHandler?
    let stopsOnDenial: Bool
    let time: ChappieTimeSource

    /// Executes `calls`; throws ``ChappieClientError/missingToolHandler(_:)`` for a declared tool
    /// without a handler, ``ChappieClientError/toolApprovalDenied(_:_:)`` when denial stops the
    /// turn, or `CancellationError`. `deliver`, when given, sends an event and returns once the
    /// stream's consumer has dealt with it: the approval handler is asked only after the
    /// consumer has seen `.toolCallRequested` and `.approvalRequested` for that call.
    func execute(_ calls: [ChappieFunctionCall], emit: @escaping @Sendable (ChappieStreamEvent) -> Void,
                 deliver: (@Sendable (ChappieStreamEvent) async -> Void)? = nil) async throws
        -> [ChappieToolExecutionResult] {
        for call in calls where tools[call.name] == nil && declaredNames.contains(call.name) {
            throw ChappieClientError.missingToolHandler(call.name)
        }
        return try await withThrowingTaskGroup(of: (Int, ChappieToolExecutionResult).self) { group in
            for (index, functionCall) in calls.enumerated() {
                group.addTask { (index, try await run(functionCall, emit: emit, deliver: deliver)) }
            }
            var results = [ChappieToolExecutionResult?](repeating: nil, count: calls.count)
            for try await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    private func run(_ functionCall: ChappieFunctionCall, emit: @Sendable (ChappieStreamEvent) -> Void,
                     deliver: (@Sendable (ChappieStreamEvent) async -> Void)?) async throws -> ChappieToolExecutionResult {
        let call = ChappieToolCall(name: functionCall.name, callID: functionCall.callID, rawArguments: functionCall.arguments)
        let started = time.now()
        func finish(_ status: ChappieToolExecutionStatus, _ output: String) -> ChappieToolExecutionResult {
            let result = ChappieToolExecutionResult(call: call, status: status, output: output,
                                                    duration: max(0, time.now().timeIntervalSince(started)))
            emit(.toolCallCompleted(result))
            return result
        }
        guard let tool = tools[call.name] else {
            emit(.toolCallRequested(ChappieToolExecutionRequest(call: call, policy: .deny)))
            return finish(.failed, Self.errorJSON("unknown tool \(call.name)"))
        }
        emit(.toolCallRequested(ChappieToolExecutionRequest(call: call, policy: tool.policy)))
        switch tool.policy {
        case .deny:
            return finish(.denied, Self.errorJSON("this tool is disabled by the app"))
        case .ask:
            let request = ChappieApprovalRequest(call: call, toolDescription: tool.description)
            if let deliver { await deliver(.approvalRequested(request)) } else { emit(.approvalRequested(request)) }
            let decision = await approvalHandler?(request) ?? .denied(reason: "No approval handler is registered.")
            if Task.isCancelled { _ = finish(.cancelled, Self.errorJSON("cancelled")); throw CancellationError() }
            if !decision.isApproved {
                let reason = decision.reason ?? "denied"
                let result = finish(.denied, Self.errorJSON("the user denied this call: \(reason)"))
                if stopsOnDenial { throw ChappieClientError.toolApprovalDenied(call.name, reason) }
                return result
            }
        case .automatic:
            break
        }
        do {
            let output = try await tool.handler(call).output
            if let parseError = call.argumentsParseError {
                return finish(.failed, output.isEmpty ? Self.errorJSON(parseError) : output)
            }
            return finish(.completed, output)
        } catch is CancellationError {
            _ = finish(.cancelled, Self.errorJSON("cancelled"))
            throw CancellationError()
        } catch {
            if Task.isCancelled { _ = finish(.cancelled, Self.errorJSON("cancelled")); throw CancellationError() }
            return finish(.failed, Self.errorJSON(Redaction.clean("\(error)", maximumBytes: 2048)))
        }
    }

    /// `{"error":"<message>"}`.
    static func errorJSON(_ message: String) -> String {
        ChappieJSONValue.object(["error": .string(message)]).jsonString
    }
}
