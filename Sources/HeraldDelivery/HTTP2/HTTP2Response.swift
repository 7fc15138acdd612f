/// A complete HTTP/2 response: status, headers and body.
public struct HTTP2Response: Sendable {
    public var status: Int
    public var headers: HTTP2Fields
    public var body: [UInt8]

    public init(status: Int, headers: HTTP2Fields, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
