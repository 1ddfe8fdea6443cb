import Foundation

/// Files a test keeps for people to look at after the run (screenshots), in
/// `.build/test-artifacts/NAME/` of the package; `.build` is never committed.
enum TestArtifacts {
    /// The artifact folder `name`, created if missing.
    static func folder(_ name: String) throws -> URL {
        let package = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // ConformanceTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        let folder = package.appendingPathComponent(".build/test-artifacts/\(name)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Whether the file at `url` starts with the PNG signature and has more after it
    /// (PNG specification §5.2).
    static func isPNG(_ url: URL) -> Bool {
        guard let data = FileManager.default.contents(atPath: url.path) else { return false }
        return data.count > Wire.pngSignature.count && data.prefix(Wire.pngSignature.count) == Wire.pngSignature
    }

    private enum Wire {
        static let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}
