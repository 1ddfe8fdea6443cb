import ChappieEmulator
@_spi(ChappieTesting) import ChappieCore
import ChappieTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The credential store `chappie` uses with `environment` (`$XDG_DATA_HOME/chappie/credentials`).
private func store(in environment: [String: String]) throws -> ChappieFileCredentialStore {
    let home = try #require(environment["XDG_DATA_HOME"])
    return ChappieFileCredentialStore(directory: URL(fileURLWithPath: home).appending(path: "chappie/credentials", directoryHint: .isDirectory))
}

/// A valid sign-in issued by `emulator`, saved in the default (ChatGPT) slot of `environment`'s store.
private func saveChatGPTSignIn(from emulator: ChappieEmulator, in environment: [String: String]) async throws {
    let tokens = await emulator.issueTokens(accessTokenLifetime: 3600)
    let credential = ChappieCredential(idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                       expiresIn: 3600, obtainedAt: Date())
    try await store(in: environment).saveCredential(credential, for: ChappieConfiguration(keychainService: "com.chappie.sdk").credentialKey)  // the CLI's own service
}

@Suite("chappie keeps tokens where they belong")
struct CLISecurityTests {
    @Test("CHAPPIE_BACKEND_URL alone never receives the ChatGPT sign-in of the default slot", .timeLimit(.minutes(1)),
          arguments: [["models"], ["usage"], ["ask", "hello"]])
    func backendOverrideAlone(command: [String]) async throws {
        try await ChappieEmulator.with(.init()) { emulator in
            // given: a ChatGPT sign-in in the default slot, and a backend override pointing at a local port
            var environment = CLIProcess.isolatedEnvironment()
            try await saveChatGPTSignIn(from: emulator, in: environment)
            environment["CHAPPIE_BACKEND_URL"] = emulator.backendBaseURL.absoluteString

            // when
            let result = try await CLIProcess.run(command, environment: environment)

            // then: refused before any request, and the error names the variable
            #expect(result.status == 2, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stderr.contains("CHAPPIE_BACKEND_URL"))
            let requests = await emulator.recordedRequests()
            #expect(requests.allSatisfy { $0.header("Authorization") == nil })
            #expect(requests.isEmpty)
        }
    }

    @Test("--backend-url alone is refused the same way, and with the issuer pointed there too it uses that issuer's slot",
          .timeLimit(.minutes(1)))
    func backendFlagAlone() async throws {
        try await ChappieEmulator.with(.init()) { emulator in
            let environment = CLIProcess.isolatedEnvironment()
            try await saveChatGPTSignIn(from: emulator, in: environment)

            let alone = try await CLIProcess.run(["models", "--backend-url", emulator.backendBaseURL.absoluteString], environment: environment)
            #expect(alone.status == 2)
            #expect(alone.stderr.contains("--backend-url"))

            let both = try await CLIProcess.run(["models", "--auth-url", emulator.baseURL.absoluteString,
                                                 "--backend-url", emulator.backendBaseURL.absoluteString], environment: environment)
            #expect(both.status == 3, "stderr: \(both.stderr)")  // not signed in to that issuer
            #expect(await emulator.recordedRequests().isEmpty)
        }
    }

    @Test("the saved sign-in's folder open to other users: status says why instead of only 'Not signed in'",
          .timeLimit(.minutes(1)))
    func statusSaysWhy() async throws {
        try await ChappieEmulator.with(.init()) { emulator in
            let environment = CLIProcess.isolatedEnvironment()
            try await saveChatGPTSignIn(from: emulator, in: environment)
            let chappie = URL(fileURLWithPath: try #require(environment["XDG_DATA_HOME"])).appending(path: "chappie").path
            chmod(chappie, 0o777)

            let status = try await CLIProcess.run(["status"], environment: environment)

            #expect(status.stderr.contains("\(chappie) is writable by other users"), "stderr: \(status.stderr)")
            #expect(status.stderr.contains("chmod go-w"))
        }
    }

    @Test("a FIFO planted at the credential path does not hang status", .timeLimit(.minutes(1)))
    func fifoDoesNotHang() async throws {
        try await ChappieEmulator.with(.init()) { emulator in
            let environment = CLIProcess.isolatedEnvironment()
            try await saveChatGPTSignIn(from: emulator, in: environment)
            let path = try store(in: environment).directory.appending(path: "com.chappie.sdk/default.json").path
            unlink(path)
            #expect(mkfifo(path, 0o600) == 0)

            let status = try await CLIProcess.run(["status"], environment: environment, timeout: 30)

            #expect(status.status == 3, "not signed in")
            #expect(status.stderr.contains("not a regular file"), "stderr: \(status.stderr)")
        }
    }

    #if os(Linux)
    @Test("chappie writes no core dump, even when the limit was raised before it started",
          .timeLimit(.minutes(1)), .enabled(if: CoreDumps.patternIsLocalFile, "core_pattern is a pipe or an absolute path"))
    func noCoreDump() async throws {
        // given: `chappie emulator` started with an unlimited core size, in a folder of its own
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = try TestProcess("/bin/sh", ["-c", #"ulimit -c unlimited 2>/dev/null; exec "$0" "$@""#, CLIProcess.binary.path, "emulator", "--port", "0", "--json"],
                                      environment: CLIProcess.isolatedEnvironment().merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 },
                                      currentDirectory: folder, error: .discard)
        let pid = process.pid
        _ = try await process.nextLine()  // the "listening" line

        // then: its core size limit is zero, soft and hard
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(core)")

        // when: it crashes
        process.send(SIGSEGV)
        let result = try await process.wait()

        // then: it died of the signal and left no core file
        #expect(result.killedBySignal)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!leftovers.contains { $0.hasPrefix("core") }, "\(leftovers)")
    }

    @Test("chappie marks itself non-dumpable: its /proc files belong to root, not to the user running it",
          .timeLimit(.minutes(1)), .enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                                            "needs root and setpriv to run chappie as another user"))
    func nonDumpable() async throws {
        // given: `chappie emulator` running as the unprivileged user 65534
        let process = try TestProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", CLIProcess.binary.path, "emulator", "--port", "0", "--json"],
                                      environment: CLIProcess.isolatedEnvironment(), error: .discard)
        defer { process.interrupt() }  // and the process is killed when the test lets go of it
        let line = try await process.nextLine()
        try #require(line?.contains("listening") == true)

        // then: the kernel owns its /proc entries, as for every non-dumpable process (a dumpable
        // one's belong to its user, who could read its memory through them)
        var info = stat()
        #expect(stat("/proc/\(process.pid)/status", &info) == 0)
        #expect(info.st_uid == 0)
    }
    #endif
}

/// Where the kernel writes core dumps on this machine.
enum CoreDumps {
    /// True when `core_pattern` names a file relative to the crashing process's folder (such as
    /// `core`), so a test can look for it there.
    static var patternIsLocalFile: Bool {
        guard let pattern = try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8) else { return false }
        let trimmed = pattern.trimmingCharacters(in: .whitespacesAndNewlines)
        return !trimmed.isEmpty && !trimmed.hasPrefix("|") && !trimmed.hasPrefix("/")
    }
}
