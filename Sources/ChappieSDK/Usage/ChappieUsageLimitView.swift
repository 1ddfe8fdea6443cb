#if canImport(SwiftUI)
import Foundation
import SwiftUI

/// "Usage limit reached", shown when the user's ChatGPT plan refuses a request
/// (``ChappieClientError/usageLimitReached(_:)``), with **Manage usage** as the primary action:
/// it opens ChatGPT's usage settings (``ChappieUsageLimit/manageUsageURL``, else
/// ``ChappieAPIError/manageUsageURL-type.property``). An app that sells its own credits may add one secondary
/// action; the actions keep the same order in both styles.
///
/// A Sign in with ChatGPT sign-in reports no reset time, so none is shown unless the limit
/// carries one. Pass the approved ChatGPT logo as `logo` to keep the ChatGPT identity visible, as
/// OpenAI's guidelines ask; without one the title names ChatGPT.
///
/// ```swift
/// .sheet(isPresented: $showsUsageLimit) {
///     ChappieUsageLimitView(limit: usageLimit)
/// }
/// ```
///
/// Type-checked for iOS and macOS, not run: see APPLE-PLATFORMS.md.
@MainActor
public struct ChappieUsageLimitView: View {
    /// How the message is laid out.
    public enum Style: Sendable, Hashable {
        /// A modal card: logo, title, explanation, then the actions stacked.
        case modal
        /// One compact row for a banner near the composer: title, then the actions in a row.
        case compact
    }

    /// An optional action after Manage usage, e.g. "Buy app credits".
    public struct SecondaryAction {
        /// The button title.
        public var title: String
        /// What the button does.
        public var perform: @MainActor () -> Void

        /// Creates an action.
        public init(title: String, perform: @escaping @MainActor () -> Void) {
            self.title = title
            self.perform = perform
        }
    }

    private let limit: ChappieUsageLimit?
    private let style: Style
    private let logo: Image?
    private let secondaryAction: SecondaryAction?
    @Environment(\.openURL) private var openURL

    /// Creates the view for `limit` (nil: a limit without details) in `style`, with the approved
    /// ChatGPT `logo` and an optional `secondaryAction` placed after Manage usage.
    public init(limit: ChappieUsageLimit? = nil, style: Style = .modal, logo: Image? = nil, secondaryAction: SecondaryAction? = nil) {
        self.limit = limit
        self.style = style
        self.logo = logo
        self.secondaryAction = secondaryAction
    }

    /// The Manage-usage link this view opens.
    public var manageUsageURL: URL { limit?.manageUsageURL ?? ChappieAPIError.manageUsageURL }

    /// The title.
    public static let title = "Usage limit reached"

    /// The explanation under the title.
    var detail: String {
        var text = "You've reached the limit of your ChatGPT plan's usage in this app."
        if let resetsAt = limit?.resetsAt {
            text += " It resets \(resetsAt.formatted(date: .abbreviated, time: .shortened))."
        }
        return text + " Manage usage in your ChatGPT settings."
    }

    /// The view.
    public var body: some View {
        switch style {
        case .modal:
            VStack(spacing: 16) {
                identity
                Text(Self.title).font(.title2.bold())
                Text(detail).font(.body).foregroundColor(.secondary).multilineTextAlignment(.center)
                VStack(spacing: 8) { actions }
            }
            .padding(24)
            .accessibilityElement(children: .contain)
        case .compact:
            HStack(spacing: 12) {
                identity
                VStack(alignment: .leading, spacing: 2) {
                    Text(Self.title).font(.headline)
                    Text("ChatGPT plan").font(.caption).foregroundColor(.secondary)
                }
                Spacer(minLength: 8)
                actions
            }
            .padding(12)
            .accessibilityElement(children: .contain)
        }
    }

    @ViewBuilder
    private var identity: some View {
        if let logo {
            logo.resizable().scaledToFit().frame(width: style == .modal ? 40 : 24, height: style == .modal ? 40 : 24)
                .accessibilityLabel("ChatGPT")
        } else {
            Text("ChatGPT").font(style == .modal ? .headline : .caption.bold()).foregroundColor(.secondary)
        }
    }

    @ViewBuilder
    private var actions: some View {
        Button("Manage usage") { openURL(manageUsageURL) }
            .buttonStyle(.borderedProminent)
        if let secondaryAction {
            Button(secondaryAction.title) { secondaryAction.perform() }
                .buttonStyle(.bordered)
        }
    }
}
#endif
