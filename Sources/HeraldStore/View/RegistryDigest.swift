import Crypto
import HeraldCore

/// A fingerprint of a whole view at one instant: views that applied the same log agree on it,
/// so nodes can be compared without shipping their records (`GET /cluster?digest=true`).
public struct RegistryDigest: Sendable, Hashable, Codable {
    public var appliedPosition: LogPosition
    public var records: Int
    /// SHA-256, in hex, over every record's key and stored value in key order.
    public var sha256: String

    /// Accumulates records, which must come in key order.
    struct Builder {
        private var hash = SHA256()
        private var count = 0

        mutating func add(key: some Collection<UInt8>, value: some Collection<UInt8>) {
            // Lengths first, so no two different sequences of records hash the same bytes.
            for field in [Array(key), Array(value)] {
                var length = UInt32(field.count).bigEndian
                withUnsafeBytes(of: &length) { self.hash.update(bufferPointer: $0) }
                self.hash.update(data: field)
            }
            self.count += 1
        }

        func finish(appliedPosition: LogPosition) -> RegistryDigest {
            let digest = self.hash.finalize().map { byte in
                let digits = String(byte, radix: 16)
                return byte < 16 ? "0" + digits : digits
            }.joined()
            return RegistryDigest(appliedPosition: appliedPosition, records: self.count, sha256: digest)
        }
    }
}
