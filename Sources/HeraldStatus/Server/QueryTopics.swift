import HeraldCore
import HeraldCrypto
import Synchronization

/// The query topics the server has joined: one per hashed key with a registration, as status-go
/// joins them after each accepted registration and at start.
///
/// A content topic is only 4 bytes of hash, so among many keys some share one; each topic keeps
/// every key that maps to it and an envelope is tried with each. The symmetric keys cost 65,356
/// PBKDF2 rounds each, so they are derived on first use and a bounded number is cached.
public final class QueryTopics: Sendable {
    /// A 64-byte hashed key stored inline, so a million joined topics cost no heap object each.
    struct HashedKey: Hashable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

        init?(_ bytes: [UInt8]) {
            guard bytes.count == 64 else { return nil }
            var words = [UInt64](repeating: 0, count: 8)
            for index in 0..<64 { words[index / 8] |= UInt64(bytes[index]) << (8 * UInt64(index % 8)) }
            self.words = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
        }

        var bytes: [UInt8] {
            let words = [self.words.0, self.words.1, self.words.2, self.words.3, self.words.4, self.words.5, self.words.6, self.words.7]
            return (0..<64).map { UInt8(truncatingIfNeeded: words[$0 / 8] >> (8 * UInt64($0 % 8))) }
        }

        static func == (lhs: HashedKey, rhs: HashedKey) -> Bool {
            lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
                && lhs.words.4 == rhs.words.4 && lhs.words.5 == rhs.words.5 && lhs.words.6 == rhs.words.6 && lhs.words.7 == rhs.words.7
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(self.words.0)
            hasher.combine(self.words.1)
        }
    }

    private struct State {
        /// The first key of each topic (by its 4 bytes); later keys of the same topic go to
        /// `collisions`. No heap object per topic: a million topics cost about 90 MB.
        var first: [UInt32: HashedKey] = [:]
        var collisions: [UInt32: [HashedKey]] = [:]
        var derivedKeys: [HashedKey: [UInt8]] = [:]
        var count = 0
    }

    public let symmetricKeyCacheLimit: Int
    private let state = Mutex(State())

    public init(symmetricKeyCacheLimit: Int = 4096) {
        self.symmetricKeyCacheLimit = symmetricKeyCacheLimit
    }

    /// Number of joined topics (hashed keys).
    public var count: Int { self.state.withLock { $0.count } }

    /// Joins the query topic of `hashedKey` (a 64-byte SHAKE-256 digest); other lengths have no
    /// query topic a client would use and are ignored.
    public func join(hashedKey bytes: [UInt8]) {
        guard let key = HashedKey(bytes) else { return }
        let topic = ContentTopic.query(hashedKey: bytes).value
        self.state.withLock { state in
            if let first = state.first[topic] {
                guard first != key, !(state.collisions[topic] ?? []).contains(key) else { return }
                state.collisions[topic, default: []].append(key)
            } else {
                state.first[topic] = key
            }
            state.count += 1
        }
    }

    /// Whether `contentTopic` is a joined query topic.
    public func contains(_ contentTopic: String) -> Bool {
        guard let topic = ContentTopic.value(of: contentTopic) else { return false }
        return self.state.withLock { $0.first[topic] != nil }
    }

    /// The symmetric keys of every hashed key joined under `contentTopic`, to try in turn.
    public func symmetricKeys(for contentTopic: String) throws -> [[UInt8]] {
        guard let topic = ContentTopic.value(of: contentTopic) else { return [] }
        let candidates: [(HashedKey, [UInt8]?)] = self.state.withLock { state in
            guard let first = state.first[topic] else { return [] }
            return ([first] + (state.collisions[topic] ?? [])).map { ($0, state.derivedKeys[$0]) }
        }
        var keys: [[UInt8]] = []
        for (hashedKey, cached) in candidates {
            if let cached {
                keys.append(cached)
                continue
            }
            // Derived outside the lock: PBKDF2 takes milliseconds.
            let derived = try TopicKey(topicName: Hex.encode(hashedKey.bytes)).rawRepresentation
            self.state.withLock { state in
                if state.derivedKeys.count >= self.symmetricKeyCacheLimit, let victim = state.derivedKeys.keys.first {
                    state.derivedKeys.removeValue(forKey: victim)
                }
                state.derivedKeys[hashedKey] = derived
            }
            keys.append(derived)
        }
        return keys
    }
}
