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
        ProcessHardening.disableCoreDumps()  // before any token is read
        let arguments = Array(CommandLine.arguments.dropFirst())
        let command = Task { await run(arguments) }
        // Ctrl-C (SIGINT) and SIGTERM cancel the running command: requests stop at once and
        // the exit status is 130 (the emulator command treats it as a normal stop).
        let sources = cancelOnTerminationSignals(command)
        let status = await command.value
        sources.forEach { $0.cancel() }
        exit(status.rawValue)
    }

    /// Installs SIGINT and SIGTERM handlers that cancel `task`. Nonisolated on purpose: the
    /// handlers run on a Dispatch queue, not on the main actor.
    nonisolated static func cancelOnTerminationSignals(_ task: Task<ExitStatus, Never>) -> [any DispatchSourceSignal] {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        return [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
    }

    /// Parses and runs a command line; returns the exit status.
    static func run(_ argv: [String]) async -> ExitStatus {
        let arguments: ParsedArguments
        do {
            arguments = try ArgumentParser.parse(argv)
        } catch let error as UsageError {
            return report(error)
        } catch {
            return .usage
        }
        if arguments.flag("help") || arguments.command == "help" {
            // `help COMMAND` and `COMMAND --help` show that command, `help --help` help's own usage,
            // and `help` alone the overview.
            let topic = arguments.command != "help" ? arguments.command
                : arguments.positionals.first ?? (arguments.flag("help") ? "help" : "")
            guard topic.isEmpty || ArgumentParser.commands.contains(topic) else {
                return report(UsageError(message: "no help for unknown command '\(topic)'"))
            }
            Terminal.line(HelpCommand.help(for: topic))
            return .success
        }
        if arguments.command == "version" || arguments.flag("version") {
            Terminal.line("chappie \(ChappieVersion.current)")
            return .success
        }
        do {
            switch arguments.command {
            case "demo": try await DemoCommand.run(arguments)
            case "emulator": try await EmulatorCommand.run(arguments)
            case "threads": try await ThreadCommands.run(arguments)
            default:
                let environment = try await CLIEnvironment.make(arguments)
                defer { Task { await environment.shutdown() } }
                switch arguments.command {
                case "login": try await AccountCommands.login(arguments, environment)
                case "logout": try await AccountCommands.logout(arguments, environment)
                case "status": try await AccountCommands.status(arguments, environment)
                case "ask": try await ConversationCommands.ask(arguments, environment)
                case "chat": try await ChatCommand.run(arguments, environment)
                case "models": try await CatalogCommands.models(arguments, environment)
                case "usage": try await CatalogCommands.usage(arguments, environment)
                default: throw UsageError(message: "unknown command '\(arguments.command)'")
                }
            }
            if Task.isCancelled && arguments.command != "emulator" {
                Terminal.error("chappie: interrupted")
                return .interrupted
            }
            return .success
        } catch {
            return report(error)
        }
    }

    /// Prints one line for `error` on standard error and picks the exit status.
    static func report(_ error: any Error) -> ExitStatus {
        switch error {
        case let error as UsageError:
            Terminal.error("chappie: \(error.message)")
            if let command = error.command, !command.isEmpty, command != "help" {
                Terminal.error(HelpCommand.usageLine(for: command))
            } else {
                Terminal.error("Run `chappie help` for usage.")
            }
            return .usage
        case let error as ChappieClientError:
            Terminal.error("chappie: \(error.errorDescription ?? "request failed")")
            if error.requiresReauthentication { Terminal.error("Run `chappie login` to sign in.") }
            switch error {
            case _ where error.requiresReauthentication: return .signInNeeded
            case .usageLimitReached: return .usageLimit
            case .network, .httpError, .serverOverloaded, .idleTimeout, .streamEndedBeforeCompletion, .responseFailed: return .network
            default: return .failure
            }
        case let error as ChappieAuthError:
            Terminal.error("chappie: \(error.errorDescription ?? "sign-in failed")")
            switch error {
            case .cancelled: return .interrupted
            case .network: return .network
            default: return error.requiresReauthentication ? .signInNeeded : .failure
            }
        case is CancellationError:
            Terminal.error("chappie: interrupted")
            return .interrupted
        default:
            Terminal.error("chappie: \(error.localizedDescription)")
            return .failure
        }
    }
}
