public import HeraldCluster

/// Why a silent-sync request is refused, with its HTTP status.
public enum SilentError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupportedMediaType(String?)
    /// The service cannot deliver to this kind of device (no credentials for it).
    case notServed(String)
    case unknownService(String)
    /// The registration's partition has no owner now (cluster).
    case unavailable(String)
    /// The owner's answer to a forwarded registration: its status and body.
    case relayed(Int, String)

    public var status: Int {
        switch self {
        case .malformed, .notServed: 400
        case .unsupportedMediaType: 415
        case .unknownService: 404
        case .unavailable: 503
        case .relayed(let status, _): status
        }
    }

    public var description: String {
        switch self {
        case .malformed(let detail), .notServed(let detail), .unavailable(let detail): detail
        case .unsupportedMediaType(let type):
            "Content-Type \(type.map { "'\($0.prefix(60))'" } ?? "is missing"): send application/x-protobuf, application/protobuf or application/json"
        case .unknownService(let name): "no silent-sync service '\(name.prefix(60))' is configured"
        case .relayed(_, let body): body
        }
    }
}

extension SilentError: OwnerUnavailableError {
    /// 503 with `Retry-After`: the app registers again later.
    public static func ownerUnavailable(_ reason: String) -> SilentError {
        .unavailable("the registration's owner cannot take it now: \(reason)")
    }
}
