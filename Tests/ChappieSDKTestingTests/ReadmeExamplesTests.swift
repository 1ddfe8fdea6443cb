import Foundation
import Testing

/// Keeps README.md's "Testing your app" examples identical to the files compiled here.
@Suite("README examples")
struct ReadmeExamplesTests {
    @Test("each README example is a compiled test file, line for line", arguments: [
        "ReadmeSwiftTestingExample.swift", "ReadmeXCTestExample.swift", "ReadmeRuntimeExample.swift",
    ])
    func exampleMatchesReadme(file: String) throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let readme = try String(contentsOf: folder.appending(path: "../../README.md").standardized, encoding: .utf8)
        let source = try String(contentsOf: folder.appending(path: file), encoding: .utf8)
        // The file's first line is a comment pointing at the README; the rest is the example.
        let example = try #require(source.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).last)
        #expect(readme.contains("```swift\n" + example + "```"))
    }
}
