extension RegistrationKey {
    /// The partition of this key's subject among `count`: every installation of a subject falls
    /// in one partition, so one owner writes all of a subject's registrations. FNV-1a over the
    /// scope and subject: stable across processes and builds, unlike `Hasher`.
    public func partition(of count: Int) -> Int {
        Self.partition(scope: self.scope, subject: self.subject, of: count)
    }

    /// The partition of every key of `subject` in `scope`.
    public static func partition(scope: RegistrationScope, subject: [UInt8], of count: Int) -> Int {
        Self.partition(ofBytes: [scope.rawValue] + subject, of: count)
    }

    /// The partition of any byte string, hashed the same way: for what a front door routes to
    /// an owner that is not a registration (an idempotency key).
    public static func partition(ofBytes bytes: [UInt8], of count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(max(count, 1)))
    }
}
