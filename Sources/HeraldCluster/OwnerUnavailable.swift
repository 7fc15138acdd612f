/// An error type that can say "the partition's owner cannot take this now" in its protocol's
/// terms: the answer a client of that protocol retries (a 503 with `Retry-After`, a message left
/// unanswered). Conforming is how a front door maps every routing failure once.
public protocol OwnerUnavailableError: Error {
    static func ownerUnavailable(_ reason: String) -> Self
}
