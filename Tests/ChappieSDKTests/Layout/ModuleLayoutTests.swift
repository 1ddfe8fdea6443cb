import Foundation
import Testing

/// The SDK's core builds without SwiftUI: `ChappieCore` imports no SwiftUI anywhere, and what
/// `ChappieSDK` adds to it is the re-export plus files for platforms with SwiftUI (or, for the
/// sign-in button's notifications, UserNotifications).
@Suite("Module layout")
struct ModuleLayoutTests {
    /// The package's `Sources` folder, found from this file's path.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Sources")

    /// The Swift files under `Sources/<module>`, with their text.
    static func swiftFiles(of module: String) throws -> [(name: String, text: String)] {
        let folder = sources.appending(path: module)
        let enumerator = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        return try enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.map {
            (String($0.path.dropFirst(folder.path.count + 1)), try String(contentsOf: $0, encoding: .utf8))
        }
    }

    @Test("ChappieCore imports no SwiftUI")
    func coreHasNoSwiftUI() throws {
        let files = try Self.swiftFiles(of: "ChappieCore")
        #expect(files.count > 100)
        let importing = files.filter { $0.text.split(separator: "\n").contains { $0.hasPrefix("import SwiftUI") } }
        #expect(importing.map(\.name) == [])
    }

    @Test("ChappieSDK is the core's re-export plus platform-gated SwiftUI and UserNotifications files")
    func umbrellaIsGated() throws {
        let files = try Self.swiftFiles(of: "ChappieSDK")
        let exports = try #require(files.first { $0.name == "Exports.swift" })
        #expect(exports.text.contains("@_exported import ChappieCore"))
        let ungated = files.filter {
            $0.name != "Exports.swift"
                && !$0.text.hasPrefix("#if canImport(SwiftUI)") && !$0.text.hasPrefix("#if canImport(UserNotifications)")
        }
        #expect(ungated.map(\.name) == [])
    }
}
