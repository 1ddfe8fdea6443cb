import ChappieSDK
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `chappie` command-line tool.
@main
@MainActor
enum ChappieCommand {
    /// Exit statuses, as documented in `chappie help`.
    enum ExitStatus: Int32 {
        case success = 0, failure = 1, usage = 2, signInNeeded = 3, usageLimit = 4, network = 5, interrupted = 130
    }

    static func main() async {
        _ = ProcessHardening.closedStandardDescriptors  // before anything opens a descriptor
        ProcessHardening.disableCoreDumps()  // before any token is read
        let arguments = Array(ProcessInfo.processInfo.arguments.dropFirst())
        let command = Task { await run(arguments) }
        // Ctrl-C (SIGINT) and SIGTERM cancel the running command: requests stop at once and
        // the exit status is 130 (the emulator command treats it as a normal stop).
        let sources = cancelOnTerminationSignals(command)
        let status = await command.value
        sources.forEach { $0.cancel() }
        // Every client is down before the exit handlers run: no WebSocket or libcurl thread of
        // theirs is left to use OpenSSL while its clean-up runs.
        await CLIClients.shutDownAll()
        terminate(status.rawValue)
    }

    /// Ends the process with `status` through `exit(3)`, once the command's clients are shut
    /// down (``CLIClients/shutDownAll()``), so the exit handlers never run under a thread of theirs.
    nonisolated static func terminate(_ status: Int32) -> Never {
        RawTerminalMode.restore()  // chat's line editing never outlives the process
        fflush(nil)
        exit(status)
    }

    /// Ends the process with `status` at once, without running `atexit` handlers: for output
    /// that cannot be written in the middle of a command, while its clients still run. Their
    /// threads (the libcurl loop `Chappie.http`, a WebSocket's I/O thread `Chappie.websocket`,
    /// which hashes its handshake with libcrypto) may be inside OpenSSL, and `exit(3)` would run
    /// OpenSSL's clean-up under them (SIGSEGV or SIGILL). Files are written before a command
    /// returns, and standard I/O is flushed here.
    nonisolated static func terminateNow(_ status: Int32) -> Never {
        RawTerminalMode.restore()
        fflush(nil)
        _exit(status)
    }

    /// Installs SIGINT and SIGTERM handlers that cancel `task`. Nonisolated on purpose: the
    /// handlers run on a Dispatch queue, not on the main actor.
    nonisolated static func cancelOnTerminationSignals(_ task: Task<ExitStatus, Never>) -> [any DispatchSourceSignal] {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        return [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            // Ctrl-C goes to the command's own handler first (chat cancels only the running turn).
            source.setEventHandler { if number != SIGINT || !InterruptRouter.shared.interrupt() { task.cancel() } }
            source.resume()
            return source
        }
    }

    /// The `chappie login …` that signs in to the slot and server this command line uses: hints
    /// name it with the options in use (`--account work`, `--auth-url URL`).
    static var loginCommand = "chappie login"

    /// Parses and runs a command line; returns the exit status.
    static func run(_ argv: [String]) async -> ExitStatus {
        let arguments: ParsedArguments
        // Errors follow the output format: with --json they are JSON too.
        let json = (argv.firstIndex(of: "--").map { argv[..<$0] } ?? argv[...]).contains("--json")
        do {
            arguments = try ArgumentParser.parse(argv)
        } catch let error as UsageError {
            return report(error, json: json)
        } catch {
            return .usage
        }
        loginCommand = AccountCommands.loginCommand(for: arguments)
        if arguments.command == "help" && !arguments.commandNamed && !arguments.flag("help") {
            // `chappie` with no command is a usage error: the overview goes to standard error.
            Terminal.error(HelpCommand.overview)
            return .usage
        }
        if arguments.flag("help") || arguments.command == "help" {
            // `help COMMAND` and `COMMAND --help` show that command, `help --help` help's own usage,
            // and `help` alone, `--help` and `-h` the overview with the command list.
            let topic = arguments.command != "help" ? arguments.command
                : arguments.positionals.first ?? (arguments.flag("help") && arguments.commandNamed ? "help" : "")
            guard topic.isEmpty || ArgumentParser.commands.contains(topic) else {
                return report(UsageError(message: "no help for unknown command '\(topic)'"), json: json)
            }
            Terminal.line(HelpCommand.help(for: topic))
            return .success
        }
        if arguments.command == "version" || arguments.flag("version") {
            Terminal.line("chappie \(ChappieVersion.current)")
            return .success
        }
        do {
            var status = ExitStatus.success
            switch arguments.command {
            case "demo": try await DemoCommand.run(arguments)
            case "emulator": try await EmulatorCommand.run(arguments)
            case "threads": try await ThreadCommands.run(arguments)
            default:
                let environment = try await CLIEnvironment.make(arguments)
                status = try await environment.closing {
                    switch arguments.command {
                    case "login": try await AccountCommands.login(arguments, environment)
                    case "logout": try await AccountCommands.logout(arguments, environment)
                    case "status": return try await AccountCommands.status(arguments, environment)
                    case "ask": try await ConversationCommands.ask(arguments, environment)
                    case "chat": try await ChatCommand.run(arguments, environment)
                    case "models": try await CatalogCommands.models(arguments, environment)
                    case "usage": try await CatalogCommands.usage(arguments, environment)
                    default: throw UsageError(message: "unknown command '\(arguments.command)'")
                    }
                    return ExitStatus.success
                }
            }
            if Task.isCancelled && arguments.command != "emulator" {
                return report(CancellationError(), json: json)
            }
            return status
        } catch {
            return report(error, json: json)
        }
    }

    /// Prints `error` — one line on standard error, with a hint line where one helps, or with
    /// `json` one `{"event":"error",…}` object on standard output, whose `hint` is that line
    /// where there is one — and picks the exit status.
    /// Every message is sanitized: error texts can carry server or user text.
    static func report(_ error: any Error, json: Bool = false) -> ExitStatus {
        let (message, hint, status) = describe(error)
        if json {
            var object: [String: ChappieJSONValue] = [
                "event": "error", "message": .string(message), "exit_status": .integer(Int(status.rawValue)),
            ]
            if let hint { object["hint"] = .string(hint) }
            Terminal.jsonLine(ChappieJSONValue.object(object))
        } else {
            Terminal.error("chappie: " + Terminal.sanitizedLine(message))
            if let hint { Terminal.error(hint) }
        }
        return status
    }

    /// What to say about `error`: the message, an optional hint line, and the exit status.
    static func describe(_ error: any Error) -> (message: String, hint: String?, status: ExitStatus) {
        switch error {
        case let error as UsageError:
            let usage = error.command.flatMap { $0.isEmpty || $0 == "help" ? nil : HelpCommand.usageLine(for: $0) }
            return (error.message, usage ?? "Run `chappie help` for usage.", .usage)
        case let error as ChappieClientError:
            var hint = error.requiresReauthentication ? "Run `\(loginCommand)` to sign in." : nil
            switch error {
            case .usageLimitReached(let limit):
                if let url = limit.manageUsageURL { hint = "Manage usage: \(url.absoluteString)" }
            case .publicAPI(let apiError):
                hint = apiError.recoverySuggestion ?? hint
            case .webSocketUpgradeRefused:
                hint = "Check --backend-url, or use --transport http."
            default:
                break
            }
            let status: ExitStatus = switch error {
            case _ where error.requiresReauthentication: .signInNeeded
            case .usageLimitReached: .usageLimit
            case .publicAPI(let apiError) where apiError.isRetryable: .network
            case .network, .httpError, .serverOverloaded, .idleTimeout, .streamEndedBeforeCompletion, .responseFailed, .webSocketUpgradeRefused:
                .network
            default: .failure
            }
            return (error.errorDescription ?? "request failed", hint ?? error.recoverySuggestion, status)
        case let error as ChappieInputError:
            return (error.errorDescription ?? "input refused", error.recoverySuggestion, .failure)
        case let error as SavedSignInUnusable:
            return (error.errorDescription ?? "not signed in", nil, .signInNeeded)
        case let error as ChappieAuthError:
            let status: ExitStatus = switch error {
            case .cancelled: .interrupted
            case .network: .network
            default: error.requiresReauthentication ? .signInNeeded : .failure
            }
            return (error.errorDescription ?? "sign-in failed", error.recoverySuggestion, status)
        case is CancellationError:
            return ("interrupted", nil, .interrupted)
        default:
            return (error.localizedDescription, (error as? any LocalizedError)?.recoverySuggestion, .failure)
        }
    }
}
