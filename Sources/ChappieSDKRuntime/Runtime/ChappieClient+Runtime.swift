import ChappieSDK

extension ChappieClient {
    /// A runtime that records every turn of this client into `store`.
    /// - Parameter store: where threads are kept (default: a ``ChappieFileThreadStore`` at its
    ///   default location).
    /// - Returns: the runtime; it sends through this client.
    public nonisolated func runtime(store: any ChappieThreadStore = ChappieFileThreadStore()) -> ChappieRuntime {
        ChappieRuntime(client: self, store: store)
    }
}
