import Foundation

/// An image's width and height in pixels, read from its header, and what the model is likely to
/// charge for it.
///
/// Formats (each from its specification's header layout):
/// - PNG: the IHDR chunk that must come first (RFC 2083 §4.1.1): big-endian width, then height.
/// - GIF: the logical screen descriptor (GIF89a §18): little-endian width, then height.
/// - JPEG: the first start-of-frame segment (ITU T.81 §B.2.2, SOF0…SOF15 except DHT, JPG and
///   DAC), found by walking the marker segments: height, then width, big-endian.
/// - WebP: the first chunk after the RIFF header (the WebP container specification): `VP8 `
///   (14-bit sizes after the key-frame start code), `VP8L` (14-bit sizes minus one after the
///   0x2F signature) or `VP8X` (24-bit canvas sizes minus one).
struct ImagePixelSize: Hashable {
    var width: Int
    var height: Int

    /// The tokens assumed for an image whose size is unknown (a URL, or unreadable bytes): what a
    /// 1024 × 1024 image costs.
    static let unknownSizeTokens = 765

    /// The size `data` declares, or nil when it is not a PNG, GIF, JPEG or WebP header this reads
    /// (or declares a zero size).
    init?(_ data: Data) {
        // Read in place (a context's estimate reads every image it holds), at most the first
        // 64 KiB: a JPEG's frame header comes after its metadata segments, each under 64 KiB.
        // The format by its signature (ImageFormat); each reader below only checks its header.
        let format = ImageFormat.detect(data)
        let found = data.withUnsafeBytes { raw -> ImagePixelSize? in
            let bytes = UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self).prefix(64 * 1024))
            switch format {
            case "image/png": return Self.png(bytes)
            case "image/gif": return Self.gif(bytes)
            case "image/webp": return Self.webP(bytes)
            case "image/jpeg": return Self.jpeg(bytes)
            default: return nil
            }
        }
        guard let found, found.width > 0, found.height > 0 else { return nil }
        self = found
    }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The input tokens a tile-priced model (GPT-4o, GPT-4.1, GPT-5 and their like) charges for
    /// this image at high detail: scaled down to fit 2048 × 2048, then down so its shorter side
    /// is at most 768, it costs 85 plus 170 for each 512-pixel tile it covers. This is OpenAI's
    /// published formula for those models; models priced by 32-pixel patches charge differently,
    /// so this is an estimate, like the rest of a context's token count.
    var estimatedTokens: Int {
        var width = Double(self.width), height = Double(self.height)
        let fit = min(1, 2048 / max(width, height))
        width *= fit
        height *= fit
        let shorten = min(1, 768 / min(width, height))
        width *= shorten
        height *= shorten
        let tiles = Int((width / 512).rounded(.up)) * Int((height / 512).rounded(.up))
        return 85 + 170 * tiles
    }

    // MARK: Formats

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    private static func png(_ b: Bytes) -> ImagePixelSize? {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        return ImagePixelSize(width: bigEndian(b, 16, 4), height: bigEndian(b, 20, 4))
    }

    private static func gif(_ b: Bytes) -> ImagePixelSize? {
        guard b.count >= 10 else { return nil }
        return ImagePixelSize(width: littleEndian(b, 6, 2), height: littleEndian(b, 8, 2))
    }

    private static func webP(_ b: Bytes) -> ImagePixelSize? {
        guard b.count >= 30 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return ImagePixelSize(width: littleEndian(b, 26, 2) & 0x3FFF, height: littleEndian(b, 28, 2) & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = littleEndian(b, 21, 4)
            return ImagePixelSize(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return ImagePixelSize(width: littleEndian(b, 24, 3) + 1, height: littleEndian(b, 27, 3) + 1)
        default:
            return nil
        }
    }

    private static func jpeg(_ b: Bytes) -> ImagePixelSize? {
        var index = 2
        while index + 3 < b.count {
            guard b[index] == 0xFF else { return nil }
            let marker = b[index + 1]
            if marker == 0xFF {  // fill byte before a marker
                index += 1
                continue
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {  // no length: TEM, RSTn
                index += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image, or scan data before any frame
            let length = bigEndian(b, index + 2, 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard index + 9 <= b.count else { return nil }
                return ImagePixelSize(width: bigEndian(b, index + 7, 2), height: bigEndian(b, index + 5, 2))
            }
            index += 2 + length
        }
        return nil
    }

    private static func bigEndian(_ b: Bytes, _ start: Int, _ count: Int) -> Int {
        b[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ b: Bytes, _ start: Int, _ count: Int) -> Int {
        b[start..<(start + count)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
