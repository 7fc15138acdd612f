public import HeraldCore

/// A deterministic stream of registry commands: the same seed always gives the same commands.
///
/// Used to fill stores for benchmarks, and by the crash test, which compares what a killed writer
/// left on disk with what the stream says it was writing. The mix is mostly new registrations,
/// with re-registrations, unregisters, dead-token disables and deliberately stale versions, so
/// every branch of the apply rule is exercised.
public struct SyntheticCommands: Sendable {
    public let seed: UInt64
    /// How many distinct subjects the stream draws from; smaller means more updates per key.
    public let subjects: Int

    public init(seed: UInt64, subjects: Int = 50_000) {
        self.seed = seed
        self.subjects = max(subjects, 1)
    }

    /// The command at `index` (0-based). Depends only on the seed and the index.
    public func command(at index: Int) -> RegistryCommand {
        var random = SplitMix64(seed: self.seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        let subjectNumber = Int(random.next() % UInt64(self.subjects))
        let installation = Int(random.next() % 3)
        // Versions rise with the index, so later commands for a key usually win; the "stale" case
        // subtracts enough to lose against an earlier one.
        let version = UInt64(index) + 1
        let key = Self.key(subject: subjectNumber, installation: installation)
        let device = Device(
            platform: random.next() % 4 == 0 ? .fcm : .apns,
            token: Self.token(subject: subjectNumber, generation: Int(random.next() % 4)),
            topic: "im.herald.synthetic",
            app: nil
        )
        switch random.next() % 20 {
        case 0..<14:
            return .register(Registration(key: key, version: version, device: device, attributes: Array(repeating: 0xA5, count: 32)))
        case 14..<16:
            return .unregister(key, version: version)
        case 16..<19:
            return .disableToken(key, token: device.token, reason: "Unregistered")
        default:
            return .register(Registration(key: key, version: version / 2, device: device))
        }
    }

    public func commands(_ range: Range<Int>) -> [RegistryCommand] {
        range.map(self.command(at:))
    }

    public static func key(subject: Int, installation: Int) -> RegistrationKey {
        var subjectBytes = [UInt8](repeating: 0, count: 64)
        var random = SplitMix64(seed: UInt64(subject))
        for index in subjectBytes.indices { subjectBytes[index] = UInt8(truncatingIfNeeded: random.next()) }
        // Non-empty, at most 64 bytes and a short id: always a valid key.
        // A 64-byte subject and a 36-byte id are always within the limits, so this cannot throw.
        return try! RegistrationKey(
            // The Status front door's scope (declared in HeraldStatus), which its benchmarks read.
            scope: RegistrationScope(1, name: "status"),
            subject: subjectBytes,
            installationID: "00000000-0000-4000-8000-\(String(installation, radix: 16).leftPadded(to: 12))"
        )
    }

    static func token(subject: Int, generation: Int) -> String {
        var random = SplitMix64(seed: UInt64(subject) << 8 | UInt64(generation))
        return Hex.encode((0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }
}

/// Sebastiano Vigna's SplitMix64: tiny, fast and deterministic across platforms, which
/// `SystemRandomNumberGenerator` is not.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - self.count)) + self
    }
}
