import NIOCore

extension MockFCM {
    /// Bodies above this are refused (413) and not kept; FCM's own limit is far lower, so an
    /// oversized message still gets its INVALID_ARGUMENT answer.
    static let maximumBodySize = 1 << 20

    /// A request as either HTTP version delivers it, gathered whole.
    struct Request {
        var method: String?
        var path: String?
        var authorization: String?
        var contentType: String?
        var body: [UInt8]
        var overHTTP2: Bool
    }

    /// Google's two endpoints, under one host: `POST /token` (oauth2.googleapis.com) and
    /// `POST /v1/projects/{project}/messages:send` (fcm.googleapis.com). Anything else is a bare
    /// 404, as a decommissioned legacy URL gets (fcm.md §4.1). `delayed`: the answer waits out
    /// the scripted latency (the send endpoint's only).
    func answer(_ request: Request) -> (answer: MockFCMAnswer, delayed: Bool) {
        guard request.method == "POST", let target = request.path else { return (.notFound, false) }
        // Matched by segment as a router does: the query plays no part, empty segments (a
        // doubled or trailing slash) are skipped.
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let segments = path.split(separator: "/")
        if segments == ["token"] {
            return (self.exchange(contentType: request.contentType, body: request.body), false)
        }
        guard segments.count == 4, segments[0] == "v1", segments[1] == "projects", segments[3] == "messages:send" else {
            return (.notFound, false)
        }
        let answer = self.send(
            project: String(segments[2]),
            authorization: request.authorization,
            contentType: request.contentType,
            body: request.body,
            overHTTP2: request.overHTTP2
        )
        return (answer, true)
    }

    /// The scripted latency as NIO's time amount, or `nil` when there is none.
    var latencyAmount: TimeAmount? {
        let latency = self.latency
        guard latency > .zero else { return nil }
        return .nanoseconds(latency.components.seconds * 1_000_000_000 + latency.components.attoseconds / 1_000_000_000)
    }
}
