import ChappieEmulator
import ChappieSDK
import Foundation

/// `emulator`: serves the emulator on a loopback port until interrupted, for other clients.
///
/// `--replay-sse FILE` makes every `/responses` call answer with the bytes of FILE as its SSE
/// body, unchanged; `--chunk-offsets 10,200,…` cuts that body into HTTP chunks at those byte
/// offsets (ChappieEmulator ``ChappieEmulator/ScriptedReply/replaySSE(_:chunkOffsets:chunkInterval:)``).
@MainActor
enum EmulatorCommand {
    /// Starts the emulator and waits for SIGINT or SIGTERM. Throws ``UsageError`` for a bad option
    /// or an unreadable `--replay-sse` file.
    static func run(_ arguments: ParsedArguments) async throws {
        func integer(_ name: String, default value: Int) throws -> Int {
            guard let text = arguments.option(name) else { return value }
            guard let number = Int(text), number >= 0 else { throw UsageError(message: "--\(name) must be a whole number") }
            return number
        }
        let port = try integer("port", default: 0)
        guard port <= 65535 else { throw UsageError(message: "--port must be a port number from 0 to 65535", command: "emulator") }
        let replay = try replayReply(arguments)
        let pollInterval = try integer("poll-interval", default: 5)
        let approveAfter = arguments.option("approve-after") == "never" ? nil : try integer("approve-after", default: 2)
        let emulator = try await ChappieEmulator.start(.init(
            port: port, pollingIntervalSeconds: pollInterval, autoApproveAfterPolls: approveAfter, standingReply: replay))
        let tls: ChappieEmulator.TLSEndpoint?
        do {
            tls = arguments.flag("tls") ? try await emulator.startTLS() : nil
        } catch {
            await emulator.shutdown()
            throw error
        }
        let authURL = emulator.baseURL.absoluteString
        let backendURL = emulator.backendBaseURL.absoluteString
        let discoveryURL = emulator.signInWithChatGPTIssuer.absoluteString + "/.well-known/openid-configuration"
        let publicAPIURL = emulator.publicAPIBaseURL.absoluteString
        if arguments.flag("json") {
            var object: [String: ChappieJSONValue] = [
                "event": "listening", "url": .string(authURL), "port": .integer(emulator.port),
                "auth_url": .string(authURL), "backend_url": .string(backendURL),
                "siwc_discovery_url": .string(discoveryURL), "public_api_url": .string(publicAPIURL),
                "approve_after_polls": approveAfter.map(ChappieJSONValue.integer) ?? .null, "poll_interval_seconds": .integer(pollInterval),
            ]
            if let tls {
                object["tls_url"] = .string(tls.baseURL.absoluteString)
                object["tls_port"] = .integer(tls.port)
                object["tls_backend_url"] = .string(tls.backendBaseURL.absoluteString)
                object["ca_certificate"] = .string(tls.certificateAuthorityPath)
            }
            Terminal.jsonLine(ChappieJSONValue.object(object))
        } else {
            Terminal.line("Chappie emulator listening on \(authURL)")
            Terminal.line("  auth issuer:  \(authURL)")
            Terminal.line("  backend:      \(backendURL)")
            Terminal.line("  SIWC issuer:  \(discoveryURL)")
            Terminal.line("  public API:   \(publicAPIURL)  (Sign in with ChatGPT tokens)")
            if let tls {
                Terminal.line("  https:        \(tls.baseURL.absoluteString) (backend \(tls.backendBaseURL.absoluteString))")
                Terminal.line("  CA:           \(tls.certificateAuthorityPath)")
                Terminal.line("                (Codex CLI: CODEX_CA_CERTIFICATE=\(tls.certificateAuthorityPath); curl: --cacert)")
            }
            if case .replaySSE(let body, let offsets, _)? = replay {
                Terminal.line("  replaying:    \(body.count) bytes in \(offsets.count + 1) chunks for every /responses call")
            }
            Terminal.line("Use it from another terminal:")
            Terminal.line("  chappie login --auth-url \(authURL)")
            Terminal.line("  chappie ask \"hello\" --auth-url \(authURL) --backend-url \(backendURL)")
            if let approveAfter {
                Terminal.line("Device codes are approved automatically after \(approveAfter) poll\(approveAfter == 1 ? "" : "s") "
                              + "(polls are \(pollInterval) s apart); no browser needed.")
            } else {
                Terminal.line("Device codes wait for you: approve them at \(authURL)/codex/device.")
            }
            Terminal.line("Each reply uses 1% of the 5-hour usage window; at 100% /responses answers 429 usage_limit_reached.")
            Terminal.line("Press Ctrl-C to stop.")
        }
        await waitForTerminationSignal()
        await tls?.shutdown()
        await emulator.shutdown()
    }

    /// The standing reply for `--replay-sse FILE [--chunk-offsets N,N,…]`, or nil without it.
    /// Throws ``UsageError`` for an unreadable file or offsets that are not byte offsets.
    static func replayReply(_ arguments: ParsedArguments) throws -> ChappieEmulator.ScriptedReply? {
        guard let path = arguments.option("replay-sse") else {
            if arguments.option("chunk-offsets") != nil { throw UsageError(message: "--chunk-offsets needs --replay-sse FILE") }
            return nil
        }
        guard let body = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "cannot read the --replay-sse file")
        }
        var offsets = [Int]()
        if let list = arguments.option("chunk-offsets"), !list.isEmpty {
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                let offset = Int(item.trimmingCharacters(in: .whitespaces)) ?? 0
                guard offset > (offsets.last ?? 0), body.count > offset else { throw UsageError(message: "--chunk-offsets must be ascending byte offsets inside the file, e.g. 10,200") }
                offsets.append(offset)
            }
        }
        return .replaySSE(body, chunkOffsets: offsets)
    }

    /// Returns when the command is cancelled (SIGINT or SIGTERM, see `ChappieCommand.main`).
    static func waitForTerminationSignal() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
