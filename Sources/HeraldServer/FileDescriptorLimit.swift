#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit. Every connection, provider stream's connection, store and etcd
/// client holds descriptors; distributions start processes with a soft limit (often 1,024, or
/// 256 in some containers) far below the hard one, so the node raises its own at start.
public enum FileDescriptorLimit {
    public struct Change: Sendable, Equatable {
        public var before: Int
        public var after: Int
        public var hard: Int
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit; returns what it was and is.
    @discardableResult
    public static func raiseToHard() -> Change {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Change(before: -1, after: -1, hard: -1) }
        let before = limit.rlim_cur
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Change(before: Self.clamp(before), after: Self.clamp(limit.rlim_cur), hard: Self.clamp(limit.rlim_max))
    }

    /// The soft limit now.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int.max }
        return Self.clamp(limit.rlim_cur)
    }

    private static func clamp(_ value: rlim_t) -> Int {
        // RLIM_INFINITY is all ones, above any Int.
        value > rlim_t(Int.max) ? Int.max : Int(value)
    }
}
