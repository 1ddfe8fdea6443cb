import ChappieSDK
import ChappieSDKTesting
import Foundation

/// The docs' entry point, `Chappie`, for the samples of this target: each call forwards to
/// `ChappieSDK.Chappie` (or, for auth sessions, the public `ChappieAuthSession` initializer with
/// the test's virtual clock) with the configuration the sample built, pointed at the test's
/// emulator and in-memory credential store by ``DocsEnvironment/redirect(_:)``.
///
/// The parameter lists mirror `ChappieSDK.Chappie` label for label and forward every argument,
/// so a documented spelling the SDK lacks does not compile here either.
enum Chappie {
    /// `Chappie.authSession(configuration:)`, on the test's virtual clock.
    @MainActor
    static func authSession(configuration: ChappieConfiguration = ChappieConfiguration()) -> ChappieAuthSession {
        let environment = DocsEnvironment.required
        return ChappieAuthSession(configuration: environment.redirect(configuration), timeSource: environment.time.timeSource)
    }

    /// `Chappie.client(configuration:harness:tools:toolApprovalHandler:rateLimitBackoff:streamingTransportPolicy:)`.
    static func client(
        configuration: ChappieConfiguration = ChappieConfiguration(),
        harness: ChappieHarness? = nil,
        tools: [ChappieHostTool] = [],
        toolApprovalHandler: ChappieToolApprovalHandler? = nil,
        rateLimitBackoff: ChappieRateLimitBackoffPolicy? = nil,
        streamingTransportPolicy: ChappieStreamingTransportPolicy? = nil
    ) -> ChappieClient {
        ChappieSDK.Chappie.client(
            configuration: DocsEnvironment.required.redirect(configuration), harness: harness, tools: tools,
            toolApprovalHandler: toolApprovalHandler, rateLimitBackoff: rateLimitBackoff,
            streamingTransportPolicy: streamingTransportPolicy)
    }
}

/// The signed-in user of the app in the docs' samples (`currentUser.id`).
struct DocsUser: Sendable {
    /// The app's own user identifier.
    let id: String
}

/// The app's current user, as the multi-account samples assume one.
let currentUser = DocsUser(id: "user-42")

/// The app's data layer the host-tool sample calls (`InventoryStore.shared.stock(for:)`).
actor InventoryStore {
    /// The one store.
    static let shared = InventoryStore()
    private let stockBySKU = ["SKU-123": 7, "SKU-124": 0, "SKU-456": 12]

    /// Units in stock for `sku`; 0 for an unknown one.
    func stock(for sku: String) -> Int { stockBySKU[sku, default: 0] }
}
