import Foundation
import Testing

/// Keeps the Swift code of the documentation compiled: every ```swift block of README.md and of
/// every article in Sources/*/*.docc must appear, line for line (indentation, blank lines and
/// `import` lines aside), in a Swift file this package compiles (this target, README's examples in
/// ChappieSDKTestingTests, or Examples/). Package manifest fragments (`.package(…)`,
/// `.product(…)`) are skipped.
@Suite("DocC articles: every code block is compiled")
struct CatalogSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardized

    /// The code blocks of every article, with the article's name.
    static func blocks() throws -> [(article: String, lines: [String])] {
        var blocks: [(String, [String])] = []
        let articles = try files(under: "Sources", extension: "md").filter { $0.path.contains(".docc/") }
        for file in articles + [root.appending(path: "README.md")] {
            var current: [String]?
            for line in try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n") {
                if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                    current = []
                } else if var lines = current {
                    if line.trimmingCharacters(in: .whitespaces) == "```" {
                        blocks.append((file.lastPathComponent, lines))
                        current = nil
                    } else {
                        lines.append(line)
                        current = lines
                    }
                }
            }
        }
        return blocks
    }

    /// Swift files under `folder` of the repository.
    static func files(under folder: String, extension pathExtension: String) throws -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root.appending(path: folder), includingPropertiesForKeys: nil)
        return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == pathExtension }
    }

    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// Whether `lines` has `block` as a contiguous run.
    static func contains(_ lines: [String], _ block: [String]) -> Bool {
        guard block.count <= lines.count else { return false }
        for start in 0...(lines.count - block.count) where Array(lines[start..<start + block.count]) == block { return true }
        return false
    }

    @Test("each article's Swift code appears in a compiled file")
    func everyBlockIsCompiled() throws {
        let compiled = try Self.files(under: "Tests/DocsSampleTests", extension: "swift")
            + Self.files(under: "Tests/ChappieSDKTestingTests", extension: "swift") + Self.files(under: "Examples", extension: "swift")
        // Lines marked `// +test` hand values to the tests and are not in the articles.
        let sources: [[String]] = try compiled.map { file in
            Self.normalized(try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")).filter { !$0.hasSuffix("// +test") }
        }
        let blocks = try Self.blocks()
        #expect(blocks.count >= 10)
        for (article, lines) in blocks {
            let block = Self.normalized(lines)
            guard let first = block.first, !first.hasPrefix(".package("), !first.hasPrefix(".product("), !first.hasPrefix("swift ") else { continue }
            let found = sources.contains { Self.contains($0, block) }
            #expect(found, "\(article): a code block is not in any compiled file:\n\(lines.joined(separator: "\n"))")
        }
    }
}
