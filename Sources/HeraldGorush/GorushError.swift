/// A request gorush refuses as a whole, with gorush's exact answer: `{"code":400,"message":…}`.
public struct GorushError: Error, Hashable, CustomStringConvertible {
    public let status: Int
    public let message: String

    public static let missingNotifications = GorushError(status: 400, message: "Missing notifications field.")
    public static let emptyNotifications = GorushError(status: 400, message: "Notifications field is empty.")

    public static func tooManyNotifications(_ count: Int, limit: Int) -> GorushError {
        GorushError(status: 400, message: "Number of notifications(\(count)) over limit(\(limit))")
    }

    public var description: String { "\(self.status): \(self.message)" }
}
