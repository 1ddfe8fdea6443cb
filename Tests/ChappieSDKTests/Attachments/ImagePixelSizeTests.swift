import Foundation
import Testing
@testable import ChappieCore

/// Real 37 × 21 images, each written by an image library in its own format.
private enum RealImage {
    static let png = "iVBORw0KGgoAAAANSUhEUgAAACUAAAAVCAIAAABOhrD5AAAAJklEQVR4nGM8IafBQEfARE/LRu0btW/UvlH7Ru0btW/UvlH7qAAAedoBODTLOf8AAAAASUVORK5CYII="
    static let gif = "R0lGODdhJQAVAIEAAMgeKAAAAAAAAAAAACwAAAAAJQAVAEAILwABCBxIsKDBgwgTKlzIsKHDhxAjSpxIsaLFixgzatzIsaPHjyBDihxJsqRJkgEBADs="
    // Baseline JPEG: APP0, two quantization tables, then the frame header.
    static let jpeg = """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/\
        2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAVACUDASIAAhEBAxEB/8QAHwAA\
        AQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRol\
        JicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW\
        19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdh\
        cRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJma\
        oqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDIooorkPqAooooAKKKKACiiigAooooAKKK\
        KAP/2Q==
        """
    static let webPLossy = "UklGRkgAAABXRUJQVlA4IDwAAAAwAwCdASolABUAPm02l0ikIyIhJWgAgA2JZwB2AABfF1UwAP7wG9//oUbKJin//9pZ/9Sz/6ln+KgAAAA="
    static let webPLossless = "UklGRh4AAABXRUJQVlA4TBEAAAAvJAAFAAdQjyIXpf+BiOh/AAA="

    static func data(_ base64: String) throws -> Data { try #require(Data(base64Encoded: base64)) }
}

@Suite("An image's pixel size from its header, and the tokens it is estimated to cost")
struct ImagePixelSizeTests {
    @Test("PNG, GIF, JPEG and both WebP codings give the size the image was written with", arguments: [
        RealImage.png, RealImage.gif, RealImage.jpeg, RealImage.webPLossy, RealImage.webPLossless,
    ])
    func realImages(_ base64: String) throws {
        let data = try RealImage.data(base64)
        #expect(ImageFormat.detect(data) != nil)
        #expect(ImagePixelSize(data) == ImagePixelSize(width: 37, height: 21))
    }

    @Test("an extended WebP header (VP8X) gives its 24-bit canvas size")
    func extendedWebP() {
        var header = Data("RIFF".utf8) + Data([0, 0, 0, 0]) + Data("WEBPVP8X".utf8) + Data([10, 0, 0, 0])
        header += Data([0x10, 0, 0, 0])  // flags (alpha), reserved
        header += Data([0xB7, 0x0B, 0x00, 0xE7, 0x03, 0x00])  // 3000 − 1, 1000 − 1, little-endian
        #expect(ImagePixelSize(header) == ImagePixelSize(width: 3000, height: 1000))
    }

    @Test("headers that are cut short, not images, or a JPEG whose scan comes before any frame give no size", arguments: [
        Data(), Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), Data("GIF89a".utf8), Data("not an image at all".utf8),
        Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 1, 2, 3, 4, 5, 6]), Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]),
    ])
    func noSize(_ data: Data) {
        #expect(ImagePixelSize(data) == nil)
    }

    @Test("damaged headers (each real image with bytes changed, cut anywhere) never trap and never give a zero size")
    func damagedHeaders() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed seed: the same cases on every run
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for base64 in [RealImage.png, RealImage.gif, RealImage.jpeg, RealImage.webPLossy, RealImage.webPLossless] {
            let original = [UInt8](try RealImage.data(base64))
            for _ in 0..<2_000 {
                var bytes = Array(original.prefix(next() % (original.count + 1)))
                for _ in 0..<(1 + next() % 4) where !bytes.isEmpty { bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next()) }
                if let size = ImagePixelSize(Data(bytes)) { #expect(size.width > 0 && size.height > 0 && size.estimatedTokens >= 85) }
            }
        }
    }

    @Test("the tile formula: fit in 2048, shorter side to 768, 85 + 170 per 512-pixel tile", arguments: [
        (37, 21, 255), (1024, 1024, 765), (2048, 4096, 1105), (512, 512, 255), (513, 512, 425), (4000, 100, 85 + 170 * 4),
    ])
    func tokens(_ width: Int, _ height: Int, _ expected: Int) {
        #expect(ImagePixelSize(width: width, height: height).estimatedTokens == expected)
    }

    @Test("a context counts an image by its size, an image URL as 1024 × 1024, and an image whose bytes are gone by its note")
    func contextEstimate() throws {
        let png = try RealImage.data(RealImage.png)
        func context(_ attachment: ChappieAttachment) -> ChappieClientContext {
            ChappieClientContext(sessionID: "s", threadID: "t", model: "m", messages: [.user("four", attachments: [attachment])],
                                 compactedSummary: nil, createdAt: Date(), updatedAt: Date())
        }
        let image = ChappieAttachment.image(data: png, mimeType: "image/png")
        #expect(context(image).estimatedTokens == 1 + 255)
        #expect(context(.imageURL(try #require(URL(string: "https://example.com/cat.png")))).estimatedTokens == 1 + 765)
        let note = try #require(image.withoutData.contentPart["text"]?.stringValue)
        #expect(context(image.withoutData).estimatedTokens == 1 + (note.count + 3) / 4)
        // Bytes that pass the signature check but whose size cannot be read count as 1024 × 1024.
        #expect(context(.image(data: pngBytes(), mimeType: "image/png")).estimatedTokens == 1 + 765)
    }
}
