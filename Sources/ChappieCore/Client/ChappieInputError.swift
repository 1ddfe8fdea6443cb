import Foundation

/// Why Chappie refused a message before sending it: an attachment the backend would not take,
/// or a feature the selected model lacks. Nothing reached the network.
public enum ChappieInputError: Error, Sendable, Equatable, LocalizedError {
    /// The model (its slug) does not take image input: its catalog entry's
    /// ``ChappieModel/inputModalities`` lacks `image`.
    case imageInputUnsupported(model: String)
    /// The MIME type is not one the backend takes for images (``ChappieAttachment/supportedImageTypes``).
    case unsupportedImageType(String)
    /// The image is larger than ``ChappieAttachment/maximumImageBytes`` (its size and the limit, in bytes).
    case imageTooLarge(byteCount: Int, limit: Int)
    /// The images of one message are larger together than
    /// ``ChappieAttachment/maximumImageBytesPerRequest`` (their size and the limit, in bytes).
    case tooManyImageBytes(byteCount: Int, limit: Int)
    /// The bytes are not a PNG, JPEG, GIF or WebP image (the declared MIME type).
    case notAnImage(declared: String)
    /// The bytes are an image of another type than the one declared.
    case imageTypeMismatch(declared: String, detected: String)
    /// An image URL that is neither `https:` nor `http:` (the URL without its query, cut short).
    case unsupportedImageURL(String)
    /// A message of another role than `user` carries attachments (the role's name): the backend
    /// takes images only in user messages, so they would not reach the model.
    case attachmentsOutsideUserMessage(role: String)
    /// Web search was asked for in a message, but the model (its slug) does not support the search
    /// tool: its catalog entry's ``ChappieModel/supportsSearchTool`` is false.
    case webSearchUnsupported(model: String)

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .imageInputUnsupported(let model): "The model \(model) does not take images."
        case .unsupportedImageType(let type): "Images of type \(type.isEmpty ? "(none)" : type) are not supported."
        case .imageTooLarge(let size, let limit): "The image is \(size) bytes; the limit is \(limit) bytes."
        case .tooManyImageBytes(let size, let limit): "The message's images are \(size) bytes together; the limit is \(limit) bytes."
        case .notAnImage(let declared): "The attachment is not a PNG, JPEG, GIF or WebP image (declared as \(declared))."
        case .imageTypeMismatch(let declared, let detected): "The image is declared as \(declared) but its data is \(detected)."
        case .unsupportedImageURL(let url): "Image URLs must be https or http: \(url)"
        case .attachmentsOutsideUserMessage(let role): "Only user messages can carry images; a \(role) message has some."
        case .webSearchUnsupported(let model): "The model \(model) does not support web search."
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .imageInputUnsupported: "Choose a model whose inputModalities include image, or send the message without the image."
        case .unsupportedImageType, .notAnImage: "Convert the image to PNG, JPEG, GIF or WebP."
        case .imageTooLarge: "Scale the image down or compress it."
        case .tooManyImageBytes: "Send fewer images per message, or scale them down."
        case .imageTypeMismatch: "Pass the MIME type that matches the data."
        case .unsupportedImageURL: "Load the image yourself and attach its data."
        case .attachmentsOutsideUserMessage: "Attach the images to a user message."
        case .webSearchUnsupported: "Choose a model whose supportsSearchTool is true, or send the message without web search."
        }
    }
}
