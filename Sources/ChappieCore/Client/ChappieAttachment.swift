import ChappieTransport
import Foundation

/// Something a user message carries besides its text: an image, as bytes with their MIME type
/// (sent inline as a `data:` URL) or as the URL of an image on the web.
///
/// ```swift
/// let photo = try Data(contentsOf: photoURL)
/// let reply = try await client.send(.user("What is in this picture?", attachments: [.image(data: photo, mimeType: "image/jpeg")]))
/// ```
///
/// Before a message with attachments is sent, Chappie checks that the selected model takes image
/// input (its catalog entry lists `image` in ``ChappieModel/inputModalities``), that the image is
/// a PNG, JPEG, GIF or WebP image whose bytes match its MIME type, and that it is at most
/// ``maximumImageBytes``; otherwise the call throws a ``ChappieInputError`` and nothing is sent.
///
/// The client keeps the bytes in memory and sends them again on later turns, as the
/// conversation's history. Stored threads keep only what an attachment is (its MIME type, size
/// or URL), never the bytes, so thread files stay small: see ``data``.
public struct ChappieAttachment: Sendable, Hashable, Codable {
    /// The image's MIME type (`image/png`, `image/jpeg`, `image/gif` or `image/webp`); nil for an
    /// image given by URL.
    public var mimeType: String?
    /// The image bytes; nil for an image given by URL, and for an inline image restored from a
    /// stored thread or context that kept only its description. A message whose image bytes are
    /// gone is sent with a short note in their place ("an image was attached here"), so the
    /// model knows an image was there.
    public var data: Data?
    /// The image's address, for an image given by URL (`https:` or `http:`).
    public var url: URL?
    /// The size of the image bytes, in bytes (kept when the bytes are not); 0 for a URL.
    public var byteCount: Int

    /// The largest inline image Chappie sends, in bytes of image data before encoding
    /// (20,000,000 bytes, 20 MB: the per-image limit the OpenAI Responses API documents; the
    /// base64 encoding on the wire is a third larger).
    public static let maximumImageBytes = 20_000_000

    /// The most inline image data one request carries, in bytes (50,000,000, 50 MB: the
    /// per-request limit the OpenAI Responses API documents). A message whose own images exceed it
    /// is refused (``ChappieInputError/tooManyImageBytes(byteCount:limit:)``); when the
    /// conversation's earlier images and the new ones together exceed it, the oldest images are
    /// sent as a short note instead of their bytes, so the conversation goes on.
    public static let maximumImageBytesPerRequest = 50_000_000

    /// The MIME types the backend accepts for images.
    public static let supportedImageTypes: [String] = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    /// An image given by its bytes and MIME type (one of ``supportedImageTypes``; `image/jpg` is
    /// read as `image/jpeg`). Nothing is checked here: a mismatch is refused when the message is
    /// sent (``ChappieInputError``).
    public static func image(data: Data, mimeType: String) -> ChappieAttachment {
        ChappieAttachment(mimeType: ImageFormat.canonical(mimeType), data: data, url: nil, byteCount: data.count)
    }

    /// An image on the web, by its `https:` (or `http:`) URL; the backend fetches it.
    public static func imageURL(_ url: URL) -> ChappieAttachment {
        ChappieAttachment(mimeType: nil, data: nil, url: url, byteCount: 0)
    }

    /// Creates an attachment from its parts; prefer ``image(data:mimeType:)`` and ``imageURL(_:)``.
    public init(mimeType: String?, data: Data?, url: URL?, byteCount: Int) {
        self.mimeType = mimeType
        self.data = data
        self.url = url
        self.byteCount = byteCount
    }

    /// This attachment without its bytes (what stored threads keep).
    public var withoutData: ChappieAttachment {
        var copy = self
        copy.data = nil
        return copy
    }

    /// A short description for people: "image/png, 12 KB", or the URL without its query.
    public var summary: String {
        if let url { return DisplayedURL.string(url) }
        let kilobytes = max(1, (byteCount + 999) / 1000)
        return "\(mimeType ?? "image"), \(kilobytes) KB"
    }

    /// Throws ``ChappieInputError`` when the backend would not take this attachment.
    func validate() throws(ChappieInputError) {
        if let url {
            guard ["https", "http"].contains(url.scheme?.lowercased() ?? "") else {
                throw .unsupportedImageURL(String(DisplayedURL.string(url).prefix(200)))
            }
            return
        }
        let mimeType = mimeType ?? ""
        guard Self.supportedImageTypes.contains(mimeType) else { throw .unsupportedImageType(Redaction.clean(mimeType, maximumBytes: 100)) }
        guard let data else { return }
        guard data.count <= Self.maximumImageBytes else { throw .imageTooLarge(byteCount: data.count, limit: Self.maximumImageBytes) }
        guard let detected = ImageFormat.detect(data) else { throw .notAnImage(declared: mimeType) }
        guard detected == mimeType else { throw .imageTypeMismatch(declared: mimeType, detected: detected) }
    }

    /// The input tokens this attachment is estimated to cost: by the image's pixel size when its
    /// bytes are here (``ImagePixelSize/estimatedTokens``), a 1024 × 1024 image's cost for a URL
    /// or bytes whose size cannot be read, and the note's length when the bytes are gone.
    var estimatedTokens: Int {
        if url != nil { return ImagePixelSize.unknownSizeTokens }
        guard let data else { return ((contentPart["text"]?.stringValue?.count ?? 0) + 3) / 4 }
        return ImagePixelSize(data)?.estimatedTokens ?? ImagePixelSize.unknownSizeTokens
    }

    /// The content part for a request: `input_image` with a `data:` URL or the image URL, or a
    /// short `input_text` note when the bytes are gone.
    var contentPart: ChappieJSONValue {
        if let url { return ["type": "input_image", "image_url": .string(url.absoluteString)] }
        guard let data, let mimeType else {
            return ["type": "input_text", "text": .string("[An image (\(summary)) was attached here; it is no longer available.]")]
        }
        return ["type": "input_image", "image_url": .string("data:\(mimeType);base64,\(data.base64EncodedString())")]
    }

    private enum CodingKeys: String, CodingKey { case mimeType, data, url, byteCount }

    /// Decodes an attachment; every field may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType)
        data = try container.decodeIfPresent(Data.self, forKey: .data)
        url = try container.decodeIfPresent(URL.self, forKey: .url)
        byteCount = try container.decodeIfPresent(Int.self, forKey: .byteCount) ?? data?.count ?? 0
    }

    /// Encodes the attachment; the bytes (base64) only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(mimeType, forKey: .mimeType)
        try container.encodeIfPresent(data, forKey: .data)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(byteCount, forKey: .byteCount)
    }
}

/// The image formats the backend takes, told apart by their first bytes.
enum ImageFormat {
    /// `mimeType` lower-cased, without parameters, `image/jpg` as `image/jpeg`.
    static func canonical(_ mimeType: String) -> String {
        let bare = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return bare == "image/jpg" ? "image/jpeg" : bare
    }

    /// The MIME type `data` starts like (PNG, JPEG, GIF, WebP signatures), or nil.
    static func detect(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }
}
