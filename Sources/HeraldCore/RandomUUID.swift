#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random (version 4) UUIDs as lowercase text, the form APNs' `apns-id` and Herald's push ids
/// take. Foundation's `UUID()` opens and reads `/dev/urandom` on every call on Linux, which cost a
/// 1-token push three system calls; this takes its 16 bytes from one `getentropy` and
/// writes the text directly.
public enum RandomUUID {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func lowercased() -> String {
        var words: (UInt64, UInt64) = (0, 0)
        // One getrandom call for both words (glibc 2.25+, musl, Darwin); the standard library's
        // generator, two calls, if it ever fails.
        let filled = withUnsafeMutableBytes(of: &words) { buffer in
            buffer.baseAddress.map { getentropy($0, buffer.count) } ?? -1
        }
        if filled != 0 {
            var generator = SystemRandomNumberGenerator()
            words = (generator.next(), generator.next())
        }
        return self.lowercased(high: words.0, low: words.1)
    }

    /// `count` of them from as few `getrandom` calls as fit (256 bytes, 16 UUIDs, a call): a
    /// request or a broadcast batch of many pushes pays one system call for every 16, not one
    /// each.
    public static func lowercased(count: Int) -> [String] {
        guard count > 1 else { return count == 1 ? [Self.lowercased()] : [] }
        var words = [UInt64](repeating: 0, count: count * 2)
        let filled = words.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            var offset = 0
            while offset < buffer.count {
                let length = min(256, buffer.count - offset)
                guard getentropy(base + offset, length) == 0 else { return false }
                offset += length
            }
            return true
        }
        if !filled {
            var generator = SystemRandomNumberGenerator()
            for index in words.indices { words[index] = generator.next() }
        }
        return (0..<count).map { Self.lowercased(high: words[2 * $0], low: words[2 * $0 + 1]) }
    }

    /// The UUID text of these 128 bits with the version and variant bits set.
    static func lowercased(high: UInt64, low: UInt64) -> String {
        let high = (high & ~0xF000) | 0x4000
        let low = (low & ~(0xC << 60)) | (0x8 << 60)
        return String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            for bits in 0..<32 {
                if bits == 8 || bits == 12 || bits == 16 || bits == 20 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = bits < 16 ? high : low
                let shift = UInt64(15 - bits % 16) * 4
                text[position] = Self.digits[Int((word >> shift) & 0xF)]
                position += 1
            }
            return position
        }
    }
}
