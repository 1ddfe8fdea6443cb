import ChappieTestSupport
import Foundation
import Testing

@Suite("chappie command line")
struct CLITests {
    @Test("demo signs in with a device code, streams a reply, shows usage and exits 0")
    func demo() async throws {
        let result = try await CLIProcess.run(["demo"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("/codex/device"))
        #expect(result.stdout.range(of: #"enter the code\s+[A-Z0-9]{4}-[A-Z0-9]{4,5}"#, options: .regularExpression) != nil)
        #expect(result.stdout.contains("Signed in as user@example.com (Plus)."))
        #expect(result.stdout.contains("Hello from the Chappie emulator"))
        #expect(result.stdout.contains("[tool] lookup_stock completed"))
        #expect(result.stdout.contains("Short window (5h)"))
        #expect(result.stdout.contains("Demo complete."))
        #expect(!result.stdout.contains("\u{1B}["), "no colour when piped or NO_COLOR")
    }

    @Test("ask --emulator streams the reply to stdout and status to stderr")
    func askEmulator() async throws {
        let result = try await CLIProcess.run(["ask", "--emulator", "what is 2+2?"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("what is 2+2?"))
        #expect(!result.stdout.contains("Signing in"))
    }

    @Test("ask reads the prompt from standard input")
    func askStdin() async throws {
        let result = try await CLIProcess.run(["ask", "--emulator"], stdin: "piped prompt\n", environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("piped prompt"))
    }

    @Test("chat reads one prompt per line from a pipe and runs slash commands")
    func chat() async throws {
        let input = "first line\n/context\n/model gpt-5.4\n/clear\nsecond line\n/compact we said hi\n/quit\nnever sent\n"
        let result = try await CLIProcess.run(["chat", "--emulator"], stdin: input, environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("you said: “first line”"))
        #expect(result.stdout.contains("2 messages"))
        #expect(result.stdout.contains("Model set to gpt-5.4."))
        #expect(result.stdout.contains("Started a new conversation"))
        #expect(result.stdout.contains("you said: “second line”"))
        #expect(result.stdout.contains("Compacted:"))
        #expect(!result.stdout.contains("never sent"))
    }

    @Test("chat saves its conversations as threads: /clear starts a second one")
    func chatSavesThreads() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let chat = try await CLIProcess.run(["chat", "--emulator"], stdin: "first thread\n/clear\nsecond thread\n", environment: environment)
        #expect(chat.status == 0, "stderr: \(chat.stderr)")
        let list = try await CLIProcess.run(["threads", "list", "--json"], environment: environment)
        #expect(list.status == 0, "stderr: \(list.stderr)")
        let titles = list.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["title"] as? String
        }
        #expect(titles == ["second thread", "first thread"])
    }

    @Test("chat --sample inventory denies an ask tool when no one can approve it")
    func chatToolDenied() async throws {
        let input = #"use tool lookup_stock {"sku":"A1"}"# + "\n"
        let result = try await CLIProcess.run(["chat", "--emulator", "--sample", "inventory"], stdin: input, environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("[tool] lookup_stock denied"))
    }

    @Test("--json prints one JSON object per line")
    func jsonLines() async throws {
        let result = try await CLIProcess.run(["ask", "--emulator", "--json", "json please"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 2)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(lines.last?.contains(#""event":"completed""#) == true)
    }

    @Test("models and usage work against the emulator")
    func modelsAndUsage() async throws {
        let models = try await CLIProcess.run(["models", "--emulator"], environment: CLIProcess.isolatedEnvironment())
        #expect(models.status == 0, "stderr: \(models.stderr)")
        #expect(models.stdout.contains("gpt-5.5"))
        let usage = try await CLIProcess.run(["usage", "--emulator"], environment: CLIProcess.isolatedEnvironment())
        #expect(usage.status == 0, "stderr: \(usage.stderr)")
        #expect(usage.stdout.contains("% used"))
    }

    @Test("without a credential, status says so and both exit 3 (sign-in needed), ask with one clear line")
    func signedOut() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let status = try await CLIProcess.run(["status"], environment: environment)
        #expect(status.status == 3)
        #expect(status.stdout.contains("Not signed in"))
        let ask = try await CLIProcess.run(["ask", "hello", "--auth-url", "http://127.0.0.1:9", "--backend-url", "http://127.0.0.1:9/backend-api"],
                                           environment: environment)
        #expect(ask.status == 3)
        #expect(ask.stderr.hasPrefix("chappie: Not signed in"))
    }

    @Test("unknown options, unknown commands and missing values exit 2", arguments: [
        ["ask", "--bogus"], ["frobnicate"], ["ask", "--model"], ["emulator", "--port", "abc"], ["demo", "--fast=yes"],
        ["help", "bogus"], ["status", "--emulator"], ["login", "--emulator"],
        ["ask", "hi", "--backend-url", "http://example.com/backend-api"], ["login", "--auth-url", "http://10.0.0.1:8080"],
        ["ask", "hi", "--backend-url", "http://127.attacker.example/backend-api"], ["login", "--auth-url", "http://127.0.0.1.nip.io"],
        ["ask", "hi", "--backend-url", "ftp://127.0.0.1/"],
        ["threads"], ["threads", "frobnicate"], ["threads", "show"], ["threads", "resume"], ["threads", "archive"],
        ["threads", "unarchive"], ["threads", "delete"], ["threads", "list", "--bogus"],
        ["emulator", "--port", "99999"], ["login", "--auth-url", "http://127.0.0.1:99999"], ["ask", "hi", "--port", "8080"],
        ["threads", "list", "--emulator"], ["threads", "show", "abcd", "--emulator"],
        ["ask", "hi", "--model", ""], ["models", "--model="], ["status", "--account", ""], ["ask", "hi", "--account="],
    ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await CLIProcess.run(arguments, environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("chappie: "))
        #expect(result.stderr.split(separator: "\n").count == 2, "one line of error, one of usage: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a usage error after a command shows that command's usage line")
    func usageErrorShowsCommandUsage() async throws {
        let result = try await CLIProcess.run(["ask", "--bogus"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.stderr == "chappie: unknown option --bogus\nUsage: chappie ask PROMPT [--image PATH[,PATH…]] [--web-search] [--model SLUG] [--fast] [--account NAME] "
                + "[--auth-url URL [--backend-url URL] | --emulator] [--transport auto|websocket|http] [--raw] [--json]\n")
        let plain = try await CLIProcess.run(["https://x", "--bogus"], environment: CLIProcess.isolatedEnvironment())
        #expect(plain.stderr.hasSuffix("Run `chappie help` for usage.\n"))
    }

    @Test("plain http is refused for remote hosts, so a token never travels unencrypted, and allowed on loopback", arguments: [
        "http://localhost:9", "http://127.0.0.1:9", "http://[::1]:9",
    ])
    func loopbackHTTPAllowed(url: String) async throws {
        let result = try await CLIProcess.run(["login", "--auth-url", url], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 5, "a network error, not a usage error: \(result.stderr)")
    }

    @Test("an unreachable server is a network error, exit 5, never a crash")
    func unreachable() async throws {
        let result = try await CLIProcess.run(["login", "--auth-url", "http://127.0.0.1:9"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 5, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("chappie: "))
    }

    @Test("--version and help")
    func versionAndHelp() async throws {
        let version = try await CLIProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("chappie "))
        let help = try await CLIProcess.run(["help", "ask"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Usage: chappie ask"))
    }

    @Test("no output of a full session contains a token")
    func noTokensPrinted() async throws {
        let result = try await CLIProcess.run(["demo", "--json"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let output = result.stdout + result.stderr
        #expect(!output.contains("eyJ"), "a JWT appeared in the output")
        #expect(!output.localizedCaseInsensitiveContains("bearer"))
        #expect(!output.contains("refresh_token"))
    }
}
