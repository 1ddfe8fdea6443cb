/// `help` and `--version`.
enum HelpCommand {
    /// The overview shown by `chappie help`.
    static let overview = """
        chappie — sign in to ChatGPT with a device code and talk to the Codex backend.

        Usage: chappie <command> [options]

        Commands:
          demo                 Run the whole flow on a built-in emulator (no account needed)
          login                Sign in (--siwc: Sign in with ChatGPT; else the device-code flow)
          logout               Sign out and delete the stored credential
          status               Show who is signed in
          ask "PROMPT"         Send one prompt (or read it from standard input) and stream the reply
          chat                 Talk interactively (/model, /clear, /compact, /context, /quit)
          models               List the available models
          usage                Show usage limits as bars
          threads              Saved conversations: list, show, resume, archive, unarchive, delete
          emulator             Serve the emulator on a loopback port (--port N)
          help [COMMAND]       Show help

        Options:
          --emulator           Run ask, chat, models, usage or threads resume on a throwaway emulator
          --siwc               With demo or --emulator: sign in with Sign in with ChatGPT (the public API)
          --model SLUG         Model to use (default gpt-5.5)
          --fast               Ask for low reasoning effort
          --account NAME       Credential slot to use (default "default")
          --json               Machine-readable output, one JSON object per line (errors too)
          --raw                Print model text as it came (control characters included)
          --auth-url URL       Auth issuer base URL (or CHAPPIE_AUTH_URL)
          --backend-url URL    Backend base URL (or CHAPPIE_BACKEND_URL; default with --auth-url: its /backend-api)
          --transport KIND     auto (WebSocket, HTTP as the fallback), websocket or http (or CHAPPIE_TRANSPORT)
          --version            Print the version

        Exit status: 0 ok, 1 other failure, 2 usage error, 3 sign-in needed,
        4 usage limit reached, 5 network or server error, 130 interrupted.
        """

    /// The options that pick the server and the transport, as the usage lines of the commands
    /// that talk to the backend show them.
    static let connection = "[--auth-url URL [--backend-url URL] | --emulator] [--transport auto|websocket|http]"

    /// What ``connection``'s options do.
    static let connectionHelp = """
        --auth-url URL sends the sign-in and the requests to that server (or CHAPPIE_AUTH_URL; its /backend-api
        unless --backend-url says otherwise); --emulator runs the command on a throwaway in-process emulator;
        --transport picks WebSocket with HTTP as the fallback (auto), WebSocket only, or HTTP only (or CHAPPIE_TRANSPORT).
        """

    /// Help for one command.
    static func help(for command: String) -> String {
        switch command {
        case "demo": "Usage: chappie demo [PROMPT] [--siwc] [--json]\nStarts an emulator, signs in with the device-code flow (--siwc: Sign in with ChatGPT), streams a reply and shows usage."
        case "login": "Usage: chappie login [--account NAME] [--auth-url URL] [--json]\nShows a user code and a URL; enter the code there to sign in.\n"
            + "       chappie login --siwc [--no-browser] [--port N] [--app-name NAME] [--enable-plan-usage] [--new-registration]\n"
            + "Signs in with Sign in with ChatGPT: opens ChatGPT's sign-in page (or prints it with --no-browser) and waits\n"
            + "for the browser to come back to 127.0.0.1. --enable-plan-usage asks for ChatGPT plan usage again."
        case "logout": "Usage: chappie logout [--account NAME] [--json]\nRevokes and deletes the stored credential of this account slot."
        case "status": "Usage: chappie status [--account NAME] [--json]\nShows who is signed in, checked with the server; exits 3 when sign-in is needed."
        case "ask": "Usage: chappie ask PROMPT [--image PATH[,PATH…]] [--web-search] [--model SLUG] [--fast] [--account NAME] \(connection) [--raw] [--json]\n       echo PROMPT | chappie ask\n\(connectionHelp)\n--image attaches PNG, JPEG, GIF or WebP files (comma-separated); --web-search lets the model search the web."
        case "chat": "Usage: chappie chat [--thread ID] [--model SLUG] [--fast] [--sample inventory] [--account NAME] \(connection) [--raw] [--json]\n\(connectionHelp)\n--thread ID continues a saved thread (its ID or first 4+ characters).\nReads one prompt per line, with line editing and history on a terminal; /model SLUG, /clear, /compact [SUMMARY], /context, /quit.\nCtrl-C stops the reply in progress (or clears the line); Ctrl-D leaves.\nA network or server error ends only that turn; one that needs sign-in (exit 3) or a reached usage limit (exit 4) ends the chat."
        case "models": "Usage: chappie models [--account NAME] \(connection) [--json]\n\(connectionHelp)"
        case "usage": "Usage: chappie usage [--account NAME] \(connection) [--json]\n\(connectionHelp)"
        case "threads": "Usage: \(ThreadCommands.usage)\nThe conversations `demo`, `chat` and `threads resume` saved, newest first."
        case "help": "Usage: chappie help [COMMAND]"
        case "emulator": "Usage: chappie emulator [--port N] [--poll-interval SECONDS] [--approve-after POLLS|never] [--replay-sse FILE [--chunk-offsets N,N,…]] [--tls] [--json]\nPrints the --auth-url and --backend-url to use; approves device codes after 2 polls by default.\n--tls also serves HTTPS on a second port, with a certificate authority made for this run (its path is printed; for the Codex CLI set CODEX_CA_CERTIFICATE to it)."
        default: overview
        }
    }

    /// The first line of `command`'s help (its usage), shown under a usage error.
    static func usageLine(for command: String) -> String {
        String(help(for: command).split(separator: "\n").first ?? "")
    }
}
