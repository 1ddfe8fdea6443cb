/// The command line after parsing: a command, its positional arguments and its options.
struct ParsedArguments: Equatable {
    var command: String
    var positionals: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []
    /// False when no command was named (`chappie`, `chappie --help`): `command` is then `help`.
    var commandNamed = false

    /// The value of `--name`, if given.
    func option(_ name: String) -> String? { options[name] }
    /// True when `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// A usage error: one line for standard error, exit status 2.
struct UsageError: Error, Equatable {
    var message: String
    /// The command whose usage to show under the message, when one was recognised.
    var command: String?

    init(message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }
}

/// Table-driven parser: global options and flags valid for every command, value options take the
/// next argument (or `--name=value`), `--` ends options.
enum ArgumentParser {
    /// Options that take a value.
    static let valueOptions: Set<String> = [
        "model", "account", "auth-url", "backend-url", "transport", "port", "poll-interval", "approve-after", "sample", "replay-sse", "chunk-offsets",
        "app-name", "thread", "image",
    ]
    /// Options that take no value.
    static let flagOptions: Set<String> = [
        "emulator", "fast", "json", "help", "version", "all", "raw", "siwc", "no-browser", "enable-plan-usage", "new-registration", "tls", "web-search",
    ]
    /// Known commands.
    static let commands: Set<String> = ["demo", "login", "logout", "status", "ask", "chat", "models", "usage", "emulator", "help", "threads"]

    /// Parses `arguments` (without the program name). Throws ``UsageError``.
    static func parse(_ arguments: [String]) throws -> ParsedArguments {
        var parsed = ParsedArguments(command: "")
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded && argument == "--" { optionsEnded = true; continue }
            if !optionsEnded && argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                var inlineValue: String?
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if valueOptions.contains(name) {
                    if let inlineValue {
                        parsed.options[name] = inlineValue
                    } else {
                        guard index < arguments.count else { throw UsageError(message: "option --\(name) needs a value", command: parsed.command) }
                        parsed.options[name] = arguments[index]
                        index += 1
                    }
                } else if flagOptions.contains(name) {
                    guard inlineValue == nil else { throw UsageError(message: "option --\(name) takes no value", command: parsed.command) }
                    parsed.flags.insert(name)
                } else {
                    throw UsageError(message: "unknown option --\(name)", command: parsed.command)
                }
                continue
            }
            if !optionsEnded && argument == "-h" { parsed.flags.insert("help"); continue }
            if parsed.command.isEmpty && !optionsEnded {
                guard commands.contains(argument) else { throw UsageError(message: "unknown command '\(argument)'") }
                parsed.command = argument
                parsed.commandNamed = true
            } else {
                parsed.positionals.append(argument)
            }
        }
        if parsed.command.isEmpty { parsed.command = parsed.flag("version") ? "version" : "help" }
        try checkOptions(parsed)
        return parsed
    }

    /// Options some commands ignore are refused there instead, so a typo or a misplaced option
    /// is never silently dropped. Throws ``UsageError``.
    static func checkOptions(_ parsed: ParsedArguments) throws {
        for name in ["model", "account"] where parsed.options[name]?.isEmpty == true {
            throw UsageError(message: "--\(name) needs a value that is not empty", command: parsed.command)
        }
        if ["login", "logout", "status", "models", "usage", "emulator", "chat", "version"].contains(parsed.command),
           let extra = parsed.positionals.first {
            throw UsageError(message: "`chappie \(parsed.command)` takes no arguments, not '\(extra)'", command: parsed.command)
        }
        if parsed.options["thread"] != nil, parsed.command != "chat" {
            throw UsageError(message: "--thread applies only to `chappie chat` (`threads resume ID PROMPT` continues a thread once)",
                             command: parsed.command)
        }
        for name in ["image", "web-search"] where (parsed.options[name] != nil || parsed.flag(name)) && parsed.command != "ask" {
            throw UsageError(message: "--\(name) applies only to `chappie ask`", command: parsed.command)
        }
        if parsed.options["port"] != nil, parsed.command != "emulator" {
            throw UsageError(message: "--port applies only to `chappie emulator`", command: parsed.command)
        }
        if parsed.flag("siwc"), !parsed.flag("emulator"), !["demo", "login", "logout", "status", "help"].contains(parsed.command) {
            throw UsageError(message: "--siwc applies to demo and to --emulator; a saved sign-in's own route decides where its requests go",
                             command: parsed.command)
        }
        if parsed.flag("emulator"), parsed.command == "threads", parsed.positionals.first != "resume" {
            throw UsageError(message: "--emulator applies only to `threads resume` (saved threads are local)", command: parsed.command)
        }
    }

}
