import ChappieSDK

/// Every client and sign-in session a command makes, so that the process shuts them down before
/// it exits: a client's WebSocket closes with a normal closure, and their network threads end, so
/// nothing of theirs still runs while the C runtime's exit handlers clean up OpenSSL.
@MainActor
enum CLIClients {
    private static var clients: [ChappieClient] = []
    private static var sessions: [ChappieAuthSession] = []

    /// A client as ``/ChappieSDK/Chappie/client(configuration:harness:tools:toolApprovalHandler:rateLimitBackoff:streamingTransportPolicy:)``
    /// makes it, kept for ``shutDownAll()``.
    static func client(configuration: ChappieConfiguration, harness: ChappieHarness? = nil, tools: [ChappieHostTool] = [],
                       toolApprovalHandler: ChappieToolApprovalHandler? = nil) -> ChappieClient {
        let client = Chappie.client(configuration: configuration, harness: harness, tools: tools, toolApprovalHandler: toolApprovalHandler)
        clients.append(client)
        return client
    }

    /// A session as ``/ChappieSDK/Chappie/authSession(configuration:)`` makes it, kept for
    /// ``shutDownAll()``.
    static func authSession(configuration: ChappieConfiguration) -> ChappieAuthSession {
        let session = Chappie.authSession(configuration: configuration)
        sessions.append(session)
        return session
    }

    /// Shuts every client and session made so far down and waits until each is down.
    static func shutDownAll() async {
        let all = clients
        clients.removeAll()
        for client in all { await client.shutdown() }
        let allSessions = sessions
        sessions.removeAll()
        for session in allSessions { await session.shutdown() }
    }
}
