import ChappieTransport
import Foundation

/// One client's view of the signed-in account's model catalog: fetched through the client's
/// request pipeline (the Codex backend's `GET /models`, or the public API's `GET /v1/models` on a
/// Sign in with ChatGPT sign-in), cached with its `ETag` for ``ModelCatalogCache/lifetime``, and
/// dropped early when a response's `x-models-etag` says it changed. It owns the cache, so the
/// client's turns ask it for an entry instead of reading a copy.
actor ModelCatalog {
    private let pipeline: RequestPipeline
    private let endpoints: ChappieEndpoints
    private let time: ChappieTimeSource
    private var cache: ModelCatalogCache?

    /// A catalog read through `pipeline` from `endpoints`, aged by `time`.
    init(pipeline: RequestPipeline, endpoints: ChappieEndpoints, time: ChappieTimeSource) {
        self.pipeline = pipeline
        self.endpoints = endpoints
        self.time = time
    }

    /// The catalog sorted as ``ChappieClient/models(forceRefresh:)`` documents: the cached one
    /// while it is fresh and the signed-in account's, else fetched (`sessionID` goes in the
    /// request's session header). Throws ``ChappieClientError``.
    func models(forceRefresh: Bool, sessionID: String) async throws -> [ChappieModel] {
        let owner = await pipeline.credentials.catalogOwner()
        if !forceRefresh, let cache, cache.owner == owner, time.now().timeIntervalSince(cache.fetchedAt) < ModelCatalogCache.lifetime {
            return cache.models
        }
        let backend = try await pipeline.backend()
        let url = backend.modelsURL(endpoints)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "client_version", value: ChappieVersion.modelsClientVersion)]
        let (data, head) = try await pipeline.sendJSON(method: .get, url: components?.url ?? url, body: nil, sessionID: sessionID)
        let root = try? ChappieJSONValue(jsonData: data)
        let models: [ChappieModel]
        switch backend {
        case .codex:
            guard let entries = (root?[Wire.models] ?? root?[Wire.data])?.arrayValue else {
                throw ChappieClientError.invalidResponse("the model list is not {\"models\":[…]}")
            }
            models = entries.compactMap(ChappieModel.init(catalogEntry:)).sorted { $0.priority < $1.priority }
        case .publicAPI:
            guard let entries = root?[Wire.models]?.arrayValue else {
                throw ChappieClientError.invalidResponse("the model list is not {\"models\":[…]}")
            }
            models = entries.enumerated().compactMap { ChappieModel(publicCatalogEntry: $0.element, position: $0.offset) }
                .filter { $0.visibility == ChappieModel.listedVisibility }
        }
        cache = ModelCatalogCache(models: models, etag: head.header(Wire.etag), fetchedAt: time.now(), owner: owner)
        return models
    }

    /// The cached entry for `slug`, without fetching; nil when nothing is cached or the slug is
    /// not listed.
    func cachedEntry(for slug: String) -> ChappieModel? {
        cache?.models.first { $0.slug == slug }
    }

    /// The entry for `slug`, fetching the catalog first when none is cached; nil when the slug is
    /// not listed or the catalog cannot be read (the server then decides).
    func entry(for slug: String, sessionID: String) async -> ChappieModel? {
        if cache == nil { _ = try? await models(forceRefresh: false, sessionID: sessionID) }
        return cachedEntry(for: slug)
    }

    /// Drops the cache when a response's `x-models-etag` (`etag`, nil when absent) names another
    /// catalog than the cached one.
    func noteModelsETag(_ etag: String?) {
        guard let etag, let cached = cache, cached.etag != etag else { return }
        cache = nil
    }

    private enum Wire {
        static let models = "models"
        static let data = "data"
        static let etag = "etag"
    }
}

/// The last model catalog fetched, with its `ETag`.
struct ModelCatalogCache: Sendable {
    /// Seconds a catalog stays fresh (the Codex CLI's TTL, PROTOCOL §8).
    static let lifetime: TimeInterval = 300
    var models: [ChappieModel]
    var etag: String?
    var fetchedAt: Date
    /// Whose catalog it is (``CredentialManager/catalogOwner()``): another account's is never used.
    var owner: String?
}
