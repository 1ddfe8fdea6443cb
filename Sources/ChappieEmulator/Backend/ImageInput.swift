import Foundation

/// The `input_image` parts of a request's messages (PROTOCOL §4.4:
/// `{"type":"input_image","image_url":"data:<mime>;base64,<data>"|"https:…","detail":…}`), checked
/// as the Responses API checks them: a `data:` URL must name an image type the backend takes
/// (PNG, JPEG, GIF, WebP), carry well-formed base64 of an image of one of those formats, and be at
/// most the configured size; an `http(s):` URL is taken as it is (the emulator fetches nothing).
///
/// The refusal texts follow the API's: a malformed URL or another MIME type gets
/// "Invalid 'input[i].content[j].image_url'. Expected a base64-encoded data URL with an image MIME
/// type …"; data that is not an image, "The image data you provided does not represent a valid
/// image …", which the Codex CLI recognises (PROTOCOL §5.5). The size text is the emulator's own
/// (the real one is not recorded).
enum ImageInput {
    /// The refusal text for the first bad image part of `input`, or nil when all are good.
    static func rejection(in input: [JSONValue], maximumBytes: Int) -> String? {
        for (itemIndex, item) in input.enumerated() {
            for (partIndex, part) in (item["content"]?.arrayValue ?? []).enumerated() where part["type"]?.stringValue == "input_image" {
                let location = "input[\(itemIndex)].content[\(partIndex)].image_url"
                guard let url = part["image_url"]?.stringValue ?? part["image_url"]?["url"]?.stringValue else {
                    return "Missing required parameter: '\(location)'."
                }
                if url.hasPrefix("https://") || url.hasPrefix("http://") { continue }
                guard url.hasPrefix("data:") else { return invalidURL(location, "a value without the 'data:' prefix") }
                guard let comma = url.firstIndex(of: ",") else { return invalidURL(location, "a data URL without a comma") }
                let header = url[url.index(url.startIndex, offsetBy: 5)..<comma]
                let parameters = header.split(separator: ";")
                let mimeType = parameters.first.map { $0.lowercased() } ?? ""
                guard parameters.dropFirst().contains("base64") else { return invalidURL(location, "a data URL that is not base64") }
                guard supportedTypes.contains(mimeType) else { return invalidURL(location, "unsupported MIME type '\(mimeType)'") }
                let payload = url[url.index(after: comma)...]
                // Base64 holds 3 bytes per 4 characters: refuse an oversized one before decoding it.
                guard payload.utf8.count / 4 * 3 <= maximumBytes + 2 else { return tooLarge(location, maximumBytes) }
                guard let data = Data(base64Encoded: String(payload)), format(of: data) != nil else { return notAnImage }
                guard data.count <= maximumBytes else { return tooLarge(location, maximumBytes) }
            }
        }
        return nil
    }

    /// The number of `input_image` parts in every message of `input`.
    static func count(in input: [JSONValue]) -> Int {
        input.reduce(0) { total, item in
            total + (item["content"]?.arrayValue ?? []).filter { $0["type"]?.stringValue == "input_image" }.count
        }
    }

    /// The image type `data` starts like, or nil.
    static func format(of data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    static let supportedTypes: Set<String> = ["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"]

    static let notAnImage = "The image data you provided does not represent a valid image. Please check your input and try again "
        + "with one of the supported image formats: ['image/jpeg', 'image/png', 'image/gif', 'image/webp']."

    private static func invalidURL(_ location: String, _ problem: String) -> String {
        "Invalid '\(location)'. Expected a base64-encoded data URL with an image MIME type "
            + "(e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got \(problem)."
    }

    private static func tooLarge(_ location: String, _ limit: Int) -> String {
        "Invalid '\(location)'. The image is larger than the maximum of \(limit) bytes."
    }
}
