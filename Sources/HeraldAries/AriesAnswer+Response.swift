public import Hummingbird

extension AriesAnswer: ResponseGenerator {
    /// The one HTTP form of an answer on the mediator API: its status and its body as JSON.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: .init(code: self.status), headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: self.body)))
    }
}
