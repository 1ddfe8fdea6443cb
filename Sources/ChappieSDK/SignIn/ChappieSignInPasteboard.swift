#if canImport(SwiftUI)
#if os(iOS) || os(visionOS)
import UIKit
#elseif os(macOS)
import AppKit
#endif

/// Puts the user code on the system pasteboard for ``ChappieSignIn`` (UIPasteboard on iOS and
/// visionOS, NSPasteboard on macOS; nothing where there is no pasteboard, e.g. tvOS, watchOS).
///
/// Type-checked for iOS and macOS, not run: see APPLE-PLATFORMS.md.
enum ChappieSignInPasteboard {
    /// Replaces the pasteboard's contents with `text`.
    @MainActor
    static func copy(_ text: String) {
        #if os(iOS) || os(visionOS)
        UIPasteboard.general.string = text
        #elseif os(macOS)
        NSPasteboard.general.clearContents()
        NSPasteboard.general.setString(text, forType: .string)
        #endif
    }
}
#endif
