import NIOCore

extension MockFCM {
    /// Bodies above this are refused (413) before they are read; FCM's own limit is far lower,
    /// so an oversized message still gets its INVALID_ARGUMENT answer.
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
        // The query plays no part in routing.
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        if path == "/token" {
            return (self.exchange(contentType: request.contentType, body: request.body), false)
        }
        let prefix = "/v1/projects/"
        let suffix = "/messages:send"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.utf8.count > prefix.utf8.count + suffix.utf8.count else {
            return (.notFound, false)
        }
        let project = path.dropFirst(prefix.count).dropLast(suffix.count)
        // One path segment, as a route parameter matches.
        guard !project.contains("/") else { return (.notFound, false) }
        let answer = self.send(
            project: String(project),
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
