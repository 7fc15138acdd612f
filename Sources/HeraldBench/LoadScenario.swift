/// One kind of request a load run sends, built from its index so every run of the same options
/// sends the same requests.
public protocol LoadScenario: Sendable {
    var name: String { get }
    /// Notifications one request carries (tokens per gorush request, …).
    var notificationsPerRequest: Int { get }
    func request(_ index: Int) -> LoadRequest
    /// `nil` when the answer means success, else a short error kind for the result file.
    func errorKind(status: Int, body: [UInt8]) -> String?
}

public struct LoadRequest: Sendable {
    public var path: String
    public var body: [UInt8]
    public var contentType: String
    /// Headers besides `Content-Type` (Web Push's `TTL`, `Content-Encoding`, …).
    public var headers: [(String, String)]

    public init(path: String, body: [UInt8], contentType: String = "application/json", headers: [(String, String)] = []) {
        self.path = path
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }
}
