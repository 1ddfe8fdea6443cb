import Foundation

/// Which backend a credential's requests go to, picked by the credential's sign-in route and
/// nothing else (DESIGN §10): the ChatGPT/Codex backend for a device-code sign-in (PROTOCOL.md),
/// the public Responses API for a Sign in with ChatGPT one (SIWC.md §4). Each backend has its own
/// URLs, headers, request body rules, transports and error mapping; everything else (the pipeline,
/// the credential owner, the turn loop) is shared.
enum InferenceBackend: Sendable, Hashable {
    /// `<backend>/codex/responses`, `/codex/models`, `/wham/usage`; WebSocket first, zstd bodies,
    /// `ChatGPT-Account-ID` and `originator` headers.
    case codex
    /// `<apiBase>/responses` and `<apiBase>/models`: HTTP/SSE only, an allowlisted body
    /// (``PublicAPIRequestBody``), no account or originator header, no compression.
    case publicAPI

    /// The backend of a credential from `route`.
    init(route: ChappieSignInRoute) {
        switch route {
        case .deviceCode: self = .codex
        case .signInWithChatGPT: self = .publicAPI
        }
    }

    /// The route whose credentials may be sent to this backend.
    var route: ChappieSignInRoute {
        switch self {
        case .codex: .deviceCode
        case .publicAPI: .signInWithChatGPT
        }
    }

    /// Where Responses requests go.
    func responsesURL(_ endpoints: ChappieEndpoints) -> URL {
        switch self {
        case .codex: endpoints.responses
        case .publicAPI: endpoints.apiBase.appending(path: Wire.responses)
        }
    }

    /// Where the model catalog is read.
    func modelsURL(_ endpoints: ChappieEndpoints) -> URL {
        switch self {
        case .codex: endpoints.models
        case .publicAPI: endpoints.apiBase.appending(path: Wire.models)
        }
    }

    /// The backend a request to `url` reaches under `endpoints`, by the longest base it falls
    /// under (the emulator serves both on one origin: `/backend-api` and `/v1`), WebSocket URLs
    /// included; nil for a URL under neither.
    static func destination(of url: URL, in endpoints: ChappieEndpoints) -> InferenceBackend? {
        let target = ChappieEndpoints.base(of: ChappieEndpoints.httpURL(for: url))
        let candidates: [(base: String, backend: InferenceBackend)] = [
            (ChappieEndpoints.base(of: endpoints.apiBase), .publicAPI),
            (ChappieEndpoints.base(of: endpoints.backend), .codex),
        ]
        return candidates
            .filter { target == $0.base || target.hasPrefix($0.base + "/") }
            .max { $0.base.count < $1.base.count }?
            .backend
    }

    private enum Wire {
        static let responses = "responses"
        static let models = "models"
    }
}

extension ChappieEndpoints {
    /// The HTTP form of a WebSocket URL (`wss` → `https`, `ws` → `http`); other URLs as they are.
    static func httpURL(for url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        switch components.scheme?.lowercased() {
        case Wire.wss: components.scheme = Wire.https
        case Wire.ws: components.scheme = Wire.http
        default: return url
        }
        return components.url ?? url
    }

    private enum Wire {
        static let wss = "wss"
        static let ws = "ws"
        static let https = "https"
        static let http = "http"
    }
}
