import ChappieTestSupport
import Foundation
import Testing

/// The commands on a Sign in with ChatGPT sign-in: `--emulator --siwc` signs in through the
/// emulator's registration, and every request goes to its public API (`/v1`).
@Suite("chappie on a Sign in with ChatGPT sign-in")
struct CLISignInWithChatGPTInferenceTests {
    @Test("demo --siwc signs in with ChatGPT, streams a reply, calls a host tool, says the plan reports no figures, and exits 0")
    func demo() async throws {
        let result = try await CLIProcess.run(["demo", "--siwc"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("1. Sign in with ChatGPT"))
        #expect(result.stdout.contains("using your ChatGPT plan"))
        #expect(!result.stdout.contains("/codex/device"))
        #expect(result.stdout.contains("Hello from the Chappie emulator"))
        #expect(result.stdout.contains("[tool] lookup_stock completed"))
        #expect(result.stdout.contains("reports no usage figures"))
        #expect(result.stdout.contains("Manage usage: https://chatgpt.com/settings/usage"))
        #expect(!result.stdout.contains("Short window"))
        #expect(result.stdout.contains("Demo complete."))
    }

    @Test("ask --emulator --siwc streams the reply from the public API")
    func ask() async throws {
        let result = try await CLIProcess.run(["ask", "--emulator", "--siwc", "what is 2+2?"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("what is 2+2?"))
    }

    @Test("chat --emulator --siwc runs turns, /context and /compact (a local summary) on the public API")
    func chat() async throws {
        let input = "first line\n/context\nsecond line\n/compact\n/quit\n"
        let result = try await CLIProcess.run(["chat", "--emulator", "--siwc"], stdin: input, environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("you said: “first line”"))
        #expect(result.stdout.contains("you said: “second line”"))
        #expect(result.stdout.contains("Compacted"))
    }

    @Test("models --emulator --siwc lists the public catalog's listed models, without the hidden one")
    func models() async throws {
        let result = try await CLIProcess.run(["models", "--emulator", "--siwc", "--json"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let slugs = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["slug"] as? String
        }
        #expect(!slugs.isEmpty)
        let plain = try await CLIProcess.run(["models", "--emulator"], environment: CLIProcess.isolatedEnvironment())
        #expect(plain.status == 0)
        #expect(slugs.count < plain.stdout.split(separator: "\n").count, "the hidden entry is not listed")
    }

    @Test("usage --emulator --siwc says the plan reports no figures and prints the Manage-usage link, exit 0")
    func usage() async throws {
        let result = try await CLIProcess.run(["usage", "--emulator", "--siwc"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("reports no usage figures"))
        #expect(result.stdout.contains("Manage usage: https://chatgpt.com/settings/usage"))
        let json = try await CLIProcess.run(["usage", "--emulator", "--siwc", "--json"], environment: CLIProcess.isolatedEnvironment())
        #expect(json.status == 0, "stderr: \(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["figures_reported"] as? Bool == false)
        #expect(object["manage_usage_url"] as? String == "https://chatgpt.com/settings/usage")
    }

    @Test("threads: a chat on the public API is saved, listed and resumed there")
    func threads() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let chat = try await CLIProcess.run(["chat", "--emulator", "--siwc"], stdin: "plan thread\n", environment: environment)
        #expect(chat.status == 0, "stderr: \(chat.stderr)")
        let list = try await CLIProcess.run(["threads", "list", "--json"], environment: environment)
        #expect(list.status == 0, "stderr: \(list.stderr)")
        let ids = list.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
        }
        let id = try #require(ids.first)
        let resume = try await CLIProcess.run(["threads", "resume", id, "--emulator", "--siwc", "and more"], environment: environment)
        #expect(resume.status == 0, "stderr: \(resume.stderr)")
        #expect(resume.stdout.contains("and more"))
    }

    @Test("--siwc without --emulator or demo is a usage error: a saved sign-in's own route decides")
    func flagNeedsEmulator() async throws {
        let result = try await CLIProcess.run(["ask", "--siwc", "hi"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 2)
        #expect(result.stderr.contains("--siwc"))
    }
}
