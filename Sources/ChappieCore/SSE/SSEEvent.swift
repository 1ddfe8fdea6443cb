/// One server-sent event as dispatched by the parser (WHATWG HTML §9.2.6 "Dispatch the event").
struct SSEEvent: Sendable, Equatable {
    /// The `event:` field; "message" when absent, per the spec.
    var type: String
    /// The `data:` lines joined with LF.
    var data: String
    /// The last event id seen so far (it persists across events).
    var id: String?
    /// The `retry:` reconnection time in milliseconds, when this event carried one.
    var retry: Int?
}
