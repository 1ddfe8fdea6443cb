import ChappieTestSupport
import Foundation
import Testing

/// Type-checks a `main.swift` of top-level code against the built `ChappieSDK` module, warnings
/// as errors: in top-level code Swift resolves overloads as in synchronous code, so a synchronous
/// `signOut()` overload would be picked for `try await session.signOut()` (with only a warning)
/// and return before signing out.
@Suite("Top-level code: main.swift")
struct TopLevelSignOutTests {
    /// The folder of the built modules (`…/debug/Modules`), found from the test runner's path.
    static var modulesFolder: URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appending(path: "Modules/ChappieSDK.swiftmodule")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.deletingLastPathComponent() }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    @Test("`try await session.signOut()` in main.swift is the call that waits: no warning, no synchronous overload")
    func signOutInTopLevelCode() async throws {
        let modules = try #require(Self.modulesFolder, "the built modules are next to the test runner")
        let folder = FileManager.default.temporaryDirectory.appending(path: "top-level-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = """
            import ChappieSDK

            let session = Chappie.authSession(configuration: ChappieConfiguration(keychainAccount: "main"))
            try await session.signOut()
            let finished: ChappieAuthState = session.state
            print(finished)

            """
        try Data(source.utf8).write(to: folder.appending(path: "main.swift"))
        // ChappieSDK's module refers to the C shim over libcurl (Linux): its module map and headers.
        let shim = modules.deletingLastPathComponent().appending(path: "CChappieCurl.build/module.modulemap")
        let headers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Sources/CChappieCurl/include")
        var arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", modules.path]
        if FileManager.default.fileExists(atPath: shim.path) {
            arguments += ["-Xcc", "-fmodule-map-file=" + shim.path, "-Xcc", "-I" + headers.path]
        }
        let result = try await Self.run("/usr/bin/env", arguments + [folder.appending(path: "main.swift").path])
        #expect(result.status == 0, "swiftc: \(result.output)")
        #expect(!result.output.contains("no 'async' operations"), "\(result.output)")
    }

    /// Runs a tool, returning its status and its standard output and error together.
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await TestProcess(executable, arguments, error: .standardOutput).wait()
        return (result.status, result.stdout)
    }
}
