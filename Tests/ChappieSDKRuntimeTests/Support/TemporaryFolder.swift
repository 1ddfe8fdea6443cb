import Foundation

/// A fresh folder under the system temporary folder, removed when the body ends.
func withTemporaryFolder<Result>(isolation: isolated (any Actor)? = #isolation,
                                 _ body: (URL) async throws -> Result) async throws -> Result {
    let folder = FileManager.default.temporaryDirectory
        .appending(path: "chappie-runtime-tests-\(UUID().uuidString.lowercased())", directoryHint: .isDirectory)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// The store folder inside a temporary folder (created by the store itself).
func threadsFolder(in folder: URL) -> URL {
    folder.appending(path: "threads", directoryHint: .isDirectory)
}

/// Every regular file below `folder`, recursively.
func allFiles(in folder: URL) -> [URL] {
    guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
    return enumerator.compactMap { $0 as? URL }.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
}

/// The POSIX permission bits of `url` (without following a link).
func permissions(of url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
}
