import Hummingbird
import NIOCore

/// The context of a request to the mock: Hummingbird's core storage plus the HTTP version the
/// request came over, which the record keeps.
struct MockFCMRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let overHTTP2: Bool

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        // An HTTP/2 request runs on a stream channel, a child of the connection, which is a child
        // of the listener; an HTTP/1.1 request runs on the connection itself.
        self.overHTTP2 = source.channel.parent?.parent != nil
    }
}

extension MockFCM {
    /// Bodies above this are refused (413) before they are read; FCM's own limit is far lower,
    /// so an oversized message still gets its INVALID_ARGUMENT answer.
    static let maximumBodySize = 1 << 20

    /// Google's two endpoints, under one host: `POST /token` (oauth2.googleapis.com) and
    /// `POST /v1/projects/{project}/messages:send` (fcm.googleapis.com). Anything else is a bare
    /// 404, as a decommissioned legacy URL gets (fcm.md §4.1).
    func router() -> Router<MockFCMRequestContext> {
        let router = Router(context: MockFCMRequestContext.self)
        router.post("/token") { request, _ in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return self.exchange(contentType: request.headers[.contentType], body: Array(buffer: body)).response()
        }
        router.post("/v1/projects/{project}/messages:send") { request, context in
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            let answer = self.send(
                project: context.parameters.get("project") ?? "",
                authorization: request.headers[.authorization],
                contentType: request.headers[.contentType],
                body: Array(buffer: body),
                overHTTP2: context.overHTTP2
            )
            let latency = self.latency
            if latency > .zero { try await Task.sleep(for: latency) }
            return answer.response()
        }
        return router
    }
}
