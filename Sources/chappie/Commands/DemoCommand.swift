import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import Foundation

/// `demo`: the whole product on an in-process emulator, with no set-up: device-code sign-in (or,
/// with `--siwc`, Sign in with ChatGPT and the public Responses API), a streamed answer saved as a
/// thread, a host tool call, the account and its usage limits. It leaves nothing behind: the
/// sign-in and the thread live in memory for the one run.
@MainActor
enum DemoCommand {
    /// Runs the demo. Throws ``ChappieAuthError`` or ``ChappieClientError``.
    static func run(_ arguments: ParsedArguments) async throws {
        var demoArguments = arguments
        demoArguments.flags.insert("emulator")
        let environment = try await CLIEnvironment.make(demoArguments, emulatorPollInterval: 1)
        try await environment.closing { try await run(arguments, environment) }
    }

    /// The demo's steps in `environment`.
    private static func run(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let json = arguments.flag("json")
        if !json {
            Terminal.line(Terminal.bold("Chappie demo") + Terminal.dim(" — everything runs against a local emulator; no account or network needed."))
            Terminal.line(Terminal.dim("Emulator listening on \(environment.configuration.endpoints.authIssuer.absoluteString)"))
            Terminal.line()
            Terminal.line(Terminal.bold(environment.signsInWithChatGPT ? "1. Sign in with ChatGPT" : "1. Sign in with the device-code flow"))
        }
        let session = CLIClients.authSession(configuration: environment.configuration)
        if let emulator = environment.emulator, environment.signsInWithChatGPT {
            // The emulator registers the app and grants plan usage at once, as its consent page
            // would after "Approve": requests then go to its public Responses API (/v1).
            try await EmulatorSignInWithChatGPT.signIn(environment.configuration, emulator: emulator)
            await session.reload()
            if !json {
                let info = try await CLIClients.client(configuration: environment.configuration).accountInfo()
                Terminal.line("Signed in as \(Terminal.sanitizedLine(info.email ?? "unknown")), using your ChatGPT plan.")
                Terminal.line(Terminal.dim("(The emulator approved the app's registration at once, as if you had clicked Approve on its consent page.)"))
            }
        } else {
            try await SignInPresenter.signIn(session, json: json, desktop: false)
            if !json { Terminal.line(Terminal.dim("(The emulator approved the code after a few polls, as if you had entered it in a browser.)")) }
        }
        if !json {
            Terminal.line()
            Terminal.line(Terminal.bold("2. Stream a reply"))
        }
        // One client and one runtime for both steps, so the saved thread holds the streamed
        // answer and the tool call; in memory, so the user's own threads never see the demo's.
        let client = CLIClients.client(configuration: environment.configuration, harness: ChappieHarnessSamples.inventory,
                                    tools: [DemoTools.lookupStock])
        let store = ChappieInMemoryThreadStore()
        let runtime = client.runtime(store: store)
        let raw = arguments.flag("raw")
        let prompt = arguments.positionals.isEmpty ? "Say hello and explain what Chappie does in one sentence." : arguments.positionals.joined(separator: " ")
        if !json { Terminal.line("> " + Terminal.sanitizedLine(prompt)) }
        let threadID = try await ThreadCommands.streamReply(runtime, .user(prompt), json: json, raw: raw)

        if !json {
            Terminal.line()
            Terminal.line(Terminal.bold("3. Let the model call a host tool"))
        }
        let toolPrompt = #"use tool lookup_stock {"sku":"A1"}"#
        if !json { Terminal.line("> \(toolPrompt)") }
        try await ThreadCommands.streamReply(runtime, .user(toolPrompt), json: json, raw: raw)
        let info = try await client.accountInfo()
        let usage = try await CatalogCommands.usageLimits(client)
        if json {
            Terminal.jsonLine(ChappieJSONValue.object(["event": "account", "email": info.email.map(ChappieJSONValue.string) ?? .null,
                                                   "plan": info.plan.map { .string($0.rawValue) } ?? .null]))
            Terminal.jsonLine(ChappieJSONValue.object(["event": "thread_saved",
                                                   "id": threadID.map { .string($0.uuidString.lowercased()) } ?? .null]))
            return
        }
        Terminal.line()
        Terminal.line(Terminal.bold("4. Account and usage limits"))
        Terminal.line("Account: \(Terminal.sanitizedLine(info.email ?? "unknown"))\(info.plan.map { " (\(Terminal.sanitizedLine($0.displayName)))" } ?? "")")
        if let usage { CatalogCommands.printUsage(usage) } else { CatalogCommands.printPlanUsage(json: false) }
        Terminal.line()
        if let threadID, let thread = try? await store.thread(id: threadID) {
            Terminal.line(Terminal.bold("5. Saved thread"))
            Terminal.line("Saved as thread \(threadID.uuidString.lowercased()), \(thread.turns.count) turns, in memory: the demo writes nothing to disk.")
            Terminal.line("`\(Invocation.command) chat` and `\(Invocation.command) threads resume` keep real conversations; "
                          + "`\(Invocation.command) threads list` shows them.")
            Terminal.line()
        }
        Terminal.line("Demo complete.")
    }
}

/// The host tools the demo and `chat --sample inventory` register: a fake stock database.
enum DemoTools {
    /// Units in stock per SKU.
    static let stock = ["A1": 7, "B2": 0, "C3": 42]

    /// `lookup_stock`: returns `{"sku":…,"in_stock":…}` or `{"error":…}`.
    static let lookupStock = ChappieHostTool(
        name: "lookup_stock", description: "Returns the units in stock for a SKU.",
        inputSchema: ChappieHarnessSamples.inventory.tools[0].inputSchema, policy: .automatic
    ) { call in
        guard let sku = call.argumentsJSON?["sku"]?.stringValue else {
            return ChappieToolResult(output: #"{"error":"missing sku"}"#)
        }
        guard let count = stock[sku] else { return ChappieToolResult(output: #"{"error":"unknown sku"}"#) }
        return ChappieToolResult(output: ChappieJSONValue.object(["sku": .string(sku), "in_stock": .integer(count)]).jsonString)
    }
}
