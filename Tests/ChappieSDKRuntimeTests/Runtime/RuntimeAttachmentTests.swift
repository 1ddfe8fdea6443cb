import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing

@Suite("Runtime: images in durable threads")
struct RuntimeAttachmentTests {
    /// A 3 MB "PNG" (the signature, then filler): about 4 MB of base64 on every request.
    static let photo = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x5A, count: 3_000_000 - 8)

    @Test("a large image over several turns: the thread files stay small, the image is resent, and a resumed thread notes it")
    func threadFilesStaySmall() async throws {
        try await withTemporaryFolder { folder in
            try await ChappieTestEmulator.with { emulator, configuration in
                try await ChappieTestEmulator.signIn(configuration)
                let store = ChappieFileThreadStore(directory: threadsFolder(in: folder))
                let runtime = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource).runtime(store: store)
                // when: one turn with the photo, two more without
                let first = try await runtime.send(.user("What is in it?", attachments: [.image(data: Self.photo, mimeType: "image/png")]))
                _ = try await runtime.send("Tell me more")
                let third = try await runtime.send("And the colours?")
                // then: every turn sent the photo again, from the client's memory
                #expect(first.hasSuffix("(I saw 1 image)"))
                #expect(third.hasSuffix("(I saw 1 image)"))
                // and the files hold what the image is, not its bytes
                let bytes = allFiles(in: threadsFolder(in: folder)).reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
                #expect(bytes < 64_000, "thread files: \(bytes) bytes")
                let threadID = try #require(await runtime.currentThreadID)
                let stored = try await ChappieFileThreadStore(directory: threadsFolder(in: folder)).thread(id: threadID)
                let attachment = try #require(stored.messages.first?.attachments.first)
                #expect(attachment == ChappieAttachment(mimeType: "image/png", data: nil, url: nil, byteCount: Self.photo.count))
                #expect(stored.turns.first?.input.first?.attachments.first?.data == nil)
                // when: a new app launch resumes the thread
                let relaunched = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
                    .runtime(store: ChappieFileThreadStore(directory: threadsFolder(in: folder)))
                _ = try await relaunched.resume(threadID: threadID)
                let after = try await relaunched.send("Still there?")
                // then: the model is told an image was there, and the request is valid
                #expect(!after.contains("I saw"))
                let request = try #require(await emulator.recordedRequests().last { $0.path.hasSuffix("/codex/responses") })
                let noted = String(decoding: request.body, as: UTF8.self).contains("An image (image/png, 3000 KB) was attached here")
                #expect(noted, "the resumed request does not note the image")
            }
        }
    }
}
