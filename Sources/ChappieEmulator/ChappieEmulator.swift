import Foundation

/// A faithful local stand-in for `auth.openai.com` and `chatgpt.com/backend-api`, serving real
/// HTTP/1.1 (and WebSocket) on a loopback port.
///
/// It answers only requests addressed to it on this machine: `Host` must be `127.0.0.1`,
/// `localhost` or `[::1]`, with any port, so a loopback relay in front works (a web page using DNS
/// rebinding gets 421), and an `Origin`,
/// if sent, must be its own (a cross-origin form post to the approval page gets 403). The request
/// log keeps the last 1,000 requests and the first 1 MiB of each body.
///
/// Start one per test with ``start(_:)`` or ``with(_:_:)`` (port 0 picks a free port), point a
/// client at ``baseURL`` (the OAuth issuer) and ``backendBaseURL``, and call ``shutdown()`` when
/// done. The emulator is silent: it never prints tokens or anything else.
///
/// Served routes:
/// * Auth: `POST /api/accounts/deviceauth/usercode`, `POST /api/accounts/deviceauth/token`,
///   `POST /oauth/token` (`authorization_code`, `refresh_token`), `POST /oauth/revoke`,
///   `GET`/`POST /codex/device` (the approval page).
/// * Backend: `POST /backend-api/codex/responses` (SSE), `GET` of the same path
///   upgraded to a WebSocket, `POST /backend-api/codex/responses/compact`,
///   `GET /backend-api/codex/models`, `GET /backend-api/wham/usage`, and `POST /backend-api/ps/mcp`
///   (an empty MCP server the Codex CLI connects to). Anything else is 404 `{"detail":"Not Found"}`.
/// * Sign in with ChatGPT issuer, on the same port (``signInWithChatGPTIssuer``):
///   `GET /.well-known/openid-configuration`, `GET /.well-known/jwks.json` (RS256 keys generated
///   per run with the system's crypto), `GET /api/accounts/authorize` (the consent page, or an
///   immediate redirect when device codes are approved automatically),
///   `POST /api/accounts/authorize/consent`, `POST /api/accounts/oauth/token` (form bodies:
///   `authorization_code`, `refresh_token`), `POST /api/accounts/oauth/revoke`,
///   `GET /api/accounts/oauth/userinfo`. Its tokens and the Codex issuer's are not interchangeable.
/// * Public API on Sign in with ChatGPT tokens (``publicAPIBaseURL``): `GET /v1/models`
///   (`{"models":[…]}`) and `POST /v1/responses` under the plan-usage rules (store:false,
///   stream:true, rejected fields, tools in `namespace` tools or `additional_tools` items);
///   any other `/v1/` path is 403 `subscription_sharing_route_not_supported`.
///
/// Test controls: ``approve(userCode:)``, ``deny(userCode:)``, ``expire(userCode:)``,
/// ``nextDeviceCode()``, ``issueTokens(accessTokenLifetime:)``, ``expireAccessTokens()``,
/// ``revokeAllAccessTokens()``, ``expireRefreshTokens()``, ``revokeAllRefreshTokens()``,
/// ``enqueue(_:)`` with a ``ScriptedReply`` (or ``enqueue(_:forAccountID:)``), ``enqueueRefreshFault(_:forAccountID:)``,
/// ``enqueueWebSocketFault(_:forAccountID:)``,
/// ``setPrimaryUsedPercent(_:)``, ``recordedRequests()``, ``nextClosedStream()``, and the counters
/// ``refreshGrantsServed``, ``tokenEndpointCalls`` and ``closedStreamCount``. Sign in with ChatGPT:
/// ``issueSignInWithChatGPTTokens(planUsage:)``, ``setSignInWithChatGPTConsent(_:)``,
/// ``enqueueSignInWithChatGPTTokenFault(_:grant:)``, ``setSignInWithChatGPTOutage(discovery:jwks:)``,
/// ``signInWithChatGPTRegistration(clientID:)``, ``deleteSignInWithChatGPTRegistration(clientID:)``,
/// ``expireSignInWithChatGPTAccessTokens()``, ``expireSignInWithChatGPTRefreshTokens()``,
/// ``revokeAllSignInWithChatGPTTokens()``, ``rotateSignInWithChatGPTSigningKey()``,
/// ``signSignInWithChatGPTJWT(payload:keyID:)``, ``enqueuePlanUsageFault(_:)`` (every plan error,
/// before or in the middle of a stream, and stream quirks) and ``planUsageResponsesServed(clientID:)``.
///
/// Faults are per request (each queued fault is used once, FIFO) and optionally per account: the
/// device flow signs in ``Configuration/account``, ``issueTokens(accessTokenLifetime:account:)``
/// issues tokens for any other ``Account``, and ``enqueue(_:forAccountID:)``,
/// ``enqueueRefreshFault(_:forAccountID:)`` and ``enqueueWebSocketFault(_:forAccountID:)`` target
/// the requests made with one account's tokens. (Usage, `/wham/usage` and `/models` stay those of
/// the configured account.) The catalogue:
/// * Responses stream (HTTP and WebSocket), ``enqueue(_:)``: drop after N events
///   (``ScriptedReply/disconnect(afterEvents:)``, ``ScriptedReply/cut(_:afterEvents:ending:)`` with
///   a FIN, a TCP reset or a WebSocket close code), ``ScriptedReply/stall``, slow drip
///   (``ScriptedReply/slowText(_:eventInterval:)``), any status with any body and headers
///   (``ScriptedReply/httpError(status:body:headers:)``; an `error` event on a WebSocket), no answer
///   (``ScriptedReply/dropConnection``), `response.failed`, `response.incomplete`, an `error` event
///   (``ScriptedReply/errorEvent(status:type:code:message:)``, incl.
///   ``ScriptedReply/webSocketConnectionLimitReached``), the usage limit, and a recorded body
///   (``ScriptedReply/replaySSE(_:chunkOffsets:chunkInterval:)``).
/// * WebSocket handshake, ``enqueueWebSocketFault(_:forAccountID:)``: refuse with any status (426), close right
///   after accept (1008), drop after accept. Always on: close 1009 for a message of 16 MiB or
///   more, 1003 for a binary message, 1002 for an unmasked frame; ``Configuration/acceptsWebSockets``
///   false refuses every upgrade with 426.
/// * Refresh grants, ``enqueueRefreshFault(_:forAccountID:)``: `refresh_token_reused`, `_expired`,
///   `_invalidated`, any status, no answer; and for real, a rotated token presented again.
/// * Device flow: ``deny(userCode:)``, ``expire(userCode:)``, ``Configuration/deviceCodeLifetime``.
/// * Observation: ``nextClosedStream()`` reports every stream the client closed.
public final class ChappieEmulator: Sendable {
    /// The bound TCP port on 127.0.0.1.
    public let port: Int
    /// `http://127.0.0.1:<port>`: the auth issuer base URL (device flow, `/oauth/token`, `/oauth/revoke`).
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// `<baseURL>/backend-api`: the ChatGPT backend base (`/codex/responses`, `/codex/models`, `/wham/usage`).
    public var backendBaseURL: URL { baseURL.appendingPathComponent("backend-api") }
    /// The configuration this emulator was started with.
    public let configuration: Configuration

    let listener: SocketListener
    let services: EmulatorServices

    private init(configuration: Configuration, listener: SocketListener, services: EmulatorServices) {
        self.configuration = configuration
        self.listener = listener
        self.services = services
        self.port = listener.port
    }

    /// Binds 127.0.0.1 on `configuration.port` and starts serving.
    ///
    /// - Throws: ``StartError`` when the socket cannot be created or bound.
    public static func start(_ configuration: Configuration = .init()) async throws -> ChappieEmulator {
        let services = EmulatorServices(configuration: configuration)
        let router = EmulatorRouter(services: services)
        let listener = try SocketListener(port: configuration.port) { request in
            await router.handle(request)
        }
        services.setPort(listener.port)
        return ChappieEmulator(configuration: configuration, listener: listener, services: services)
    }

    /// Starts an emulator, runs `body` with it and always shuts it down afterwards.
    ///
    /// - Throws: ``StartError`` from starting, or whatever `body` throws.
    public static func with<Result: Sendable>(
        _ configuration: Configuration = .init(),
        _ body: (ChappieEmulator) async throws -> Result
    ) async throws -> Result {
        let emulator = try await start(configuration)
        do {
            let result = try await body(emulator)
            await emulator.shutdown()
            return result
        } catch {
            await emulator.shutdown()
            throw error
        }
    }

    /// Stops listening, closes every open connection (including stalled streams) and returns once
    /// every connection thread has finished. Calling it twice is harmless.
    public func shutdown() async {
        await listener.shutdown()
        await services.deviceAuthorizations.finishWaiters()
        await services.closedStreams.finish()
    }

    /// Why ``start(_:)`` failed.
    public enum StartError: Error, Sendable, Equatable {
        /// `socket(2)` or `listen(2)` failed with this `errno`.
        case socket(errno: Int32)
        /// `bind(2)` on 127.0.0.1:`port` failed with this `errno` (e.g. `EADDRINUSE`).
        case bind(port: Int, errno: Int32)
    }
}
