#if canImport(SwiftUI)
import Foundation
import SwiftUI

/// The onboarding sheet of ``ChappieSignIn``: the three ``ChappieSignInOnboardingStep``s, with a
/// button that opens the verification URL, the user code in a tap-to-copy chip, and the phishing
/// warning (``ChappieDeviceCode/phishingWarning``) under it.
///
/// Type-checked for iOS and macOS, not run: see APPLE-PLATFORMS.md.
@MainActor
struct ChappieSignInOnboardingSheet: View {
    let deviceCode: ChappieDeviceCode
    @Environment(\.openURL) private var openURL
    @Environment(\.dismiss) private var dismiss
    @State private var copied = false

    var body: some View {
        VStack(alignment: .leading, spacing: 20) {
            ForEach(ChappieSignInOnboardingStep.allCases) { step in
                HStack(alignment: .top, spacing: 12) {
                    Text("\(step.rawValue)")
                        .font(.headline)
                        .frame(width: 28, height: 28)
                        .background(Circle().fill(Color.accentColor.opacity(0.15)))
                    VStack(alignment: .leading, spacing: 8) {
                        Text(step.title).font(.headline)
                        Text(step.detail).font(.subheadline).foregroundColor(.secondary)
                        control(for: step)
                    }
                }
            }
            Button("Cancel") { dismiss() }
        }
        .padding(24)
    }

    @ViewBuilder
    private func control(for step: ChappieSignInOnboardingStep) -> some View {
        switch step {
        case .openOpenAI:
            Button("Open OpenAI") { openURL(deviceCode.verificationURL) }
                .buttonStyle(.borderedProminent)
        case .continueWithChatGPT:
            EmptyView()
        case .pasteDeviceCode:
            Button {
                ChappieSignInPasteboard.copy(deviceCode.userCode)
                copied = true
            } label: {
                HStack(spacing: 8) {
                    Text(deviceCode.userCode).font(.system(.title2, design: .monospaced))
                    Image(systemName: copied ? "checkmark" : "doc.on.doc")
                }
                .padding(.horizontal, 14)
                .padding(.vertical, 8)
                .background(Capsule().fill(Color.secondary.opacity(0.15)))
            }
            .buttonStyle(.plain)
            .accessibilityLabel("Device code \(deviceCode.userCode). Tap to copy.")
            Label(ChappieDeviceCode.phishingWarning, systemImage: "exclamationmark.shield")
                .font(.footnote)
                .foregroundColor(.secondary)
        }
    }
}
#endif
