import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
@_spi(ChappieTesting) @testable import ChappieCore

/// A token endpoint whose refresh answers wait for the test: each refresh call announces itself
/// and blocks until the test releases it; revokes are answered at once and recorded.
actor GatedTokenEndpoint {
    private var gates: [CheckedContinuation<Void, Never>] = []
    private var arrivals: [CheckedContinuation<Void, Never>] = []
    private var pendingArrivals = 0
    private(set) var refreshCalls = 0
    private(set) var revokedTokens: [String] = []

    func handle(_ request: HTTPRequest) async -> ScriptedTransport.Reply {
        if request.url.path.hasSuffix("/revoke") {
            revokedTokens.append(request.jsonBody?["token"]?.stringValue ?? "")
            return .json(200, "{}")
        }
        refreshCalls += 1
        let number = refreshCalls
        if arrivals.isEmpty { pendingArrivals += 1 } else { arrivals.removeFirst().resume() }
        await withCheckedContinuation { gates.append($0) }
        let fresh = ChappieAuthFixtures.credential(expiresIn: 3600)
        return .json(200, #"{"access_token":"\#(fresh.accessTokenForTests)","refresh_token":"rt_new_\#(number)","id_token":"\#(fresh.idTokenForTests)","expires_in":3600}"#)
    }

    /// Returns once a refresh call has arrived (and is waiting at its gate).
    func nextArrival() async {
        if pendingArrivals > 0 {
            pendingArrivals -= 1
            return
        }
        await withCheckedContinuation { arrivals.append($0) }
    }

    /// Lets the oldest waiting refresh call answer.
    func releaseOne() { if !gates.isEmpty { gates.removeFirst().resume() } }
}
