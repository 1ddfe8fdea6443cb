import ChappieSDK

/// Every client a command makes, so that the process shuts them down before it exits: their
/// WebSocket closes with a normal closure and their network threads end, and nothing of theirs
/// still runs while the C runtime's exit handlers clean up OpenSSL.
@MainActor
enum CLIClients {
    private static var clients: [ChappieClient] = []

    /// A client as ``/ChappieSDK/Chappie/client(configuration:harness:tools:toolApprovalHandler:rateLimitBackoff:streamingTransportPolicy:)``
    /// makes it, kept for ``shutDownAll()``.
    static func client(configuration: ChappieConfiguration, harness: ChappieHarness? = nil, tools: [ChappieHostTool] = [],
                       toolApprovalHandler: ChappieToolApprovalHandler? = nil) -> ChappieClient {
        let client = Chappie.client(configuration: configuration, harness: harness, tools: tools, toolApprovalHandler: toolApprovalHandler)
        clients.append(client)
        return client
    }

    /// Shuts every client made so far down and waits until each is down.
    static func shutDownAll() async {
        let all = clients
        clients.removeAll()
        for client in all { await client.shutdown() }
    }
}
