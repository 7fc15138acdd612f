import Foundation

/// How long a test may wait before it calls something a hang.
///
/// Tests bound hangs, never speed: every real-time limit a test sets goes through `bound(_:)`,
/// which multiplies it by `HERALD_TEST_TIME_SCALE` (default 1), so a slow or busy machine raises
/// one number instead of editing tests.
public enum TestTime {
    /// The factor read once from `HERALD_TEST_TIME_SCALE`; a missing, unreadable or non-positive
    /// value means 1.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["HERALD_TEST_TIME_SCALE"],
              let value = Double(text), value.isFinite, value > 0
        else { return 1 }
        return value
    }()

    /// `limit` scaled by `scale`.
    public static func bound(_ limit: Duration) -> Duration {
        Self.scale == 1 ? limit : limit * Self.scale
    }

    /// The default limit of a wait: long enough that only a hang reaches it.
    public static var defaultWait: Duration { Self.bound(.seconds(30)) }
}
