public import HTTPTypes
public import NIOCore

/// A route the API listener answers from the connection's channel pipeline, without the router:
/// no task, request context or middleware chain a request, for a front door's busiest route.
///
/// The router keeps the same route and answers every request this one does not take, so
/// everything unusual (a missing or wrong bearer token, a chunked or oversized body, headers the
/// route leaves to the router) is answered as it always was. The listener takes a request here
/// only when no earlier request on its connection is still with the router, so answers keep
/// their order.
public protocol DirectRoute: Sendable {
    var method: HTTPRequest.Method { get }
    /// Matched exactly, without the query.
    var path: String { get }
    /// Larger bodies go to the router, which refuses them.
    var maximumBodySize: Int { get }

    /// Whether this route answers `request`, judged by its head alone; `false` leaves it to the
    /// router.
    func takes(_ request: HTTPRequest) -> Bool

    /// The answer to `request`; the future may complete on any event loop. `client` is the
    /// sender's IP address.
    func respond(to request: HTTPRequest, body: ByteBuffer, client: String?, on eventLoop: any EventLoop) -> EventLoopFuture<DirectResponse>
}

/// A direct route's answer; the listener adds `Content-Length`, `Date` and `Server`.
public struct DirectResponse: Sendable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: ByteBuffer

    public init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
