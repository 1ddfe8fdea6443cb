@_spi(ChappieTesting) import ChappieSDKRuntime
import ChappieSDK
import Foundation
import Testing

@Suite("Thread file formats: older files load and move to the current format")
struct ThreadFormatMigrationTests {
    /// Writes `Fixtures/format2` again (run once, with the SDK that wrote format 2):
    /// `CHAPPIE_WRITE_FORMAT_FIXTURES=<folder> swift test --filter writeFormatFixtures`.
    @Test("writes the format fixtures", .enabled(if: ProcessInfo.processInfo.environment["CHAPPIE_WRITE_FORMAT_FIXTURES"] != nil))
    func writeFormatFixtures() async throws {
        let folder = URL(fileURLWithPath: try required(ProcessInfo.processInfo.environment["CHAPPIE_WRITE_FORMAT_FIXTURES"]))
        let store = ChappieFileThreadStore(directory: folder)
        let stored = try await ThreadFormatFixture.write(ThreadFormatFixture.writes, to: store)
        #expect(stored == ThreadFormatFixture.expected(ThreadFormatFixture.writes))
    }
}
