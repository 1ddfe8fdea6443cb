import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// Bytes that start like a PNG image (the emulator, like the SDK, tells formats by their signature).
func pngBytes(_ count: Int = 64) -> Data {
    Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x2A, count: max(0, count - 8))
}

/// Bytes that start like a JPEG image.
func jpegBytes(_ count: Int = 64) -> Data {
    Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x11, count: max(0, count - 4))
}

/// The user message items of a request's input.
func userItems(_ body: ChappieJSONValue) -> [ChappieJSONValue] {
    (body["input"]?.arrayValue ?? []).filter { $0["role"] == "user" }
}

@Suite("Image attachments against the emulator")
struct ImageAttachmentTests {
    @Test("images on a message that is not the user's are refused before sending, not dropped")
    func attachmentsOutsideUser() async throws {
        try await withSignedInClient { emulator, client, _ in
            let message = ChappieInputMessage(role: .assistant, text: "here", attachments: [.image(data: pngBytes(), mimeType: "image/png")])
            await #expect(throws: ChappieInputError.attachmentsOutsideUserMessage(role: "assistant")) {
                _ = try await client.response(ChappieResponseRequest(messages: [message, .user("what did you show?")]))
            }
            #expect(await responseRequests(emulator).isEmpty)
        }
    }

    @Test("an image near the documented 20 MB limit goes through the emulator over HTTP (its body limit is not 16 MiB)")
    func largeImage() async throws {
        try await withSignedInClient { _, client, _ in
            let image = pngBytes(19_000_000)
            let reply = try await client.send(.user("Big one", attachments: [.image(data: image, mimeType: "image/png")]))
            #expect(reply.contains("(I saw 1 image)"))
        }
    }

    @Test("an image goes as an input_image data URL after the text, and the emulator saw it")
    func wireForm() async throws {
        try await withSignedInClient { emulator, client, _ in
            let image = pngBytes(300)
            let reply = try await client.send(.user("What is this?", attachments: [.image(data: image, mimeType: "image/png")]))
            #expect(reply.hasSuffix("(I saw 1 image)"))
            let content = try #require(userItems(try json(try await lastResponseRequest(emulator))).last?["content"]?.arrayValue)
            #expect(content.count == 2)
            #expect(content[0] == ["type": "input_text", "text": "What is this?"])
            #expect(content[1] == ["type": "input_image", "image_url": .string("data:image/png;base64," + image.base64EncodedString())])
            let stored = try #require(await client.context().messages.first)
            #expect(stored.attachments == [.image(data: image, mimeType: "image/png")])
        }
    }

    @Test("an image URL is sent as it is; image/jpg is read as image/jpeg")
    func imageURLAndJPEGAlias() async throws {
        try await withSignedInClient { emulator, client, _ in
            let url = try #require(URL(string: "https://example.com/cat.png"))
            let reply = try await client.send(.user("Two pictures", attachments: [.imageURL(url), .image(data: jpegBytes(), mimeType: "image/jpg")]))
            #expect(reply.hasSuffix("(I saw 2 images)"))
            let content = try #require(userItems(try json(try await lastResponseRequest(emulator))).last?["content"]?.arrayValue)
            #expect(content[1] == ["type": "input_image", "image_url": "https://example.com/cat.png"])
            #expect(content[2]["image_url"]?.stringValue?.hasPrefix("data:image/jpeg;base64,/9j/") == true)
        }
    }

    @Test("later turns send the image again from the client's memory")
    func resentOnLaterTurns() async throws {
        try await withSignedInClient { emulator, client, _ in
            let image = pngBytes(500)
            _ = try await client.send(.user("Look", attachments: [.image(data: image, mimeType: "image/png")]))
            let second = try await client.send("And now?")
            #expect(second.hasSuffix("(I saw 1 image)"))
            let first = try #require(userItems(try json(try await lastResponseRequest(emulator))).first)
            #expect(first["content"]?.arrayValue?.last?["image_url"]?.stringValue == "data:image/png;base64," + image.base64EncodedString())
        }
    }

    static let refusals: [(ChappieAttachment, ChappieInputError)] = [
        (.image(data: pngBytes(), mimeType: "image/bmp"), .unsupportedImageType("image/bmp")),
        (.image(data: Data("just text".utf8), mimeType: "image/png"), .notAnImage(declared: "image/png")),
        (.image(data: jpegBytes(), mimeType: "image/png"), .imageTypeMismatch(declared: "image/png", detected: "image/jpeg")),
        (.image(data: pngBytes(ChappieAttachment.maximumImageBytes + 1), mimeType: "image/png"),
         .imageTooLarge(byteCount: ChappieAttachment.maximumImageBytes + 1, limit: ChappieAttachment.maximumImageBytes)),
        (.imageURL(URL(fileURLWithPath: "/etc/passwd")), .unsupportedImageURL("file:///etc/passwd")),
    ]

    @Test("a bad image is refused before anything is sent", arguments: 0..<refusals.count)
    func refusedBeforeSending(index: Int) async throws {
        let (attachment, expected) = Self.refusals[index]
        try await withSignedInClient { emulator, client, _ in
            await #expect(throws: expected) {
                try await client.send(.user("Look", attachments: [attachment]))
            }
            #expect(await responseRequests(emulator).isEmpty)
            #expect(await client.context().messageCount == 0)
        }
    }

    @Test("a message whose images are over 50 MB together is refused before sending, though each is under the per-image limit")
    func tooManyBytesInOneMessage() async throws {
        try await withSignedInClient { emulator, client, _ in
            let image = ChappieAttachment.image(data: pngBytes(17_000_000), mimeType: "image/png")
            await #expect(throws: ChappieInputError.tooManyImageBytes(byteCount: 51_000_000, limit: ChappieAttachment.maximumImageBytesPerRequest)) {
                try await client.send(.user("Three photos", attachments: [image, image, image]))
            }
            #expect(await responseRequests(emulator).isEmpty)
        }
    }

    @Test("over the per-request limit, the oldest images of the conversation go as a note and the newest keep their bytes")
    func oldestImagesGiveWay() throws {
        let items: [ChappieTranscriptItem] = (1...3).map { turn in
            .message(.user("photo \(turn)", attachments: [.image(data: pngBytes(40 * turn), mimeType: "image/png")]))
        }
        let fitted = ChappieTranscriptItem.fittingImages(items, limit: 200)
        #expect(fitted.map { $0.message?.attachments.first?.data?.count } == [nil, 80, 120])
        let note = try #require(ChappieTranscriptItem.replayInput([fitted[0]]).first?["content"]?.arrayValue?.last)
        #expect(note == ["type": "input_text", "text": "[An image (image/png, 1 KB) was attached here; it is no longer available.]"])
        #expect(ChappieTranscriptItem.fittingImages(items, limit: 1_000) == items)
    }

    @Test("a model whose catalog entry lacks image input refuses images; text still goes")
    func modelWithoutImageInput() async throws {
        try await withSignedInClient { emulator, client, _ in
            await client.selectModel("codex-auto-review")
            await #expect(throws: ChappieInputError.imageInputUnsupported(model: "codex-auto-review")) {
                try await client.send(.user("Look", attachments: [.image(data: pngBytes(), mimeType: "image/png")]))
            }
            #expect(await responseRequests(emulator).isEmpty)
            _ = try await client.send("Text only")
            #expect(await responseRequests(emulator).count == 1)
        }
    }
}

@Suite("Attachments in saved contexts")
struct AttachmentCodingTests {
    @Test("a message saved before attachments existed decodes without any and encodes as before")
    func oldMessageShape() throws {
        let old = #"{"options":{"fastMode":false},"role":"user","text":"hi"}"#
        let message = try JSONDecoder().decode(ChappieInputMessage.self, from: Data(old.utf8))
        #expect(message.attachments.isEmpty && message.citations.isEmpty)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(message), as: UTF8.self) == old)
    }

    @Test("a context keeps the image bytes when the app encodes it; withoutAttachmentData keeps only what the image is")
    func contextCoding() throws {
        let message = ChappieInputMessage.user("look", attachments: [.image(data: pngBytes(), mimeType: "image/png")])
        let context = ChappieClientContext(sessionID: "s", threadID: "t", model: "gpt-5.5", messages: [message], compactedSummary: nil,
                                           createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        let decoded = try JSONDecoder().decode(ChappieClientContext.self, from: JSONEncoder().encode(context))
        #expect(decoded == context)
        let light = context.withoutAttachmentData
        #expect(light.messages.first?.attachments == [ChappieAttachment(mimeType: "image/png", data: nil, url: nil, byteCount: 64)])
        #expect(!String(decoding: try JSONEncoder().encode(light), as: UTF8.self).contains(pngBytes().base64EncodedString()))
    }
}
