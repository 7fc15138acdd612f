/// Extended Z85 (webpush-relay.md §6): ZeroMQ's Z85 alphabet for any length, as
/// toot-relay puts the still-encrypted Web Push body and its keys into an APNs payload and the
/// apps' notification service extensions decode them. Full 4-byte groups become 5 characters;
/// a tail of 1–3 bytes becomes one character more than its length. No padding, no prefix.
public enum Z85Extended {
    static let alphabet: [UInt8] = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    /// The digit of each byte, or 0xFF for a byte outside the alphabet.
    static let digits: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (digit, character) in alphabet.enumerated() { table[Int(character)] = UInt8(digit) }
        return table
    }()

    /// `85^0 … 85^4`.
    private static let powers: [UInt64] = [1, 85, 7_225, 614_125, 52_200_625]

    /// The number of characters `count` bytes encode to.
    public static func encodedLength(of count: Int) -> Int {
        let tail = count % 4
        return count / 4 * 5 + (tail > 0 ? tail + 1 : 0)
    }

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        return String(unsafeUninitializedCapacity: Self.encodedLength(of: input.count)) { output in
            var written = 0
            var index = 0
            func emit(_ value: UInt64, characters: Int) {
                for position in 0..<characters {
                    let digit = value / Self.powers[characters - 1 - position] % 85
                    output[written] = Self.alphabet[Int(digit)]
                    written += 1
                }
            }
            while index + 4 <= input.count {
                let value = UInt64(input[index]) << 24 | UInt64(input[index + 1]) << 16 | UInt64(input[index + 2]) << 8 | UInt64(input[index + 3])
                emit(value, characters: 5)
                index += 4
            }
            let tail = input.count - index
            if tail > 0 {
                let value = input[index...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                emit(value, characters: tail + 1)
            }
            return written
        }
    }

    /// Decodes strictly: a length of 1 modulo 5, a character outside the alphabet, a group above
    /// what 4 bytes hold or a tail above what its bytes hold is an error, where the apps' own
    /// decoder skips or truncates silently.
    public static func decode(_ text: String) throws(Z85Error) -> [UInt8] {
        let input = Array(text.utf8)
        guard input.count % 5 != 1 else { throw .length(input.count) }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 5 * 4 + 3)
        var start = 0
        while start < input.count {
            let characters = min(5, input.count - start)
            var value: UInt64 = 0
            for offset in 0..<characters {
                let digit = Self.digits[Int(input[start + offset])]
                guard digit != 0xFF else { throw .character(input[start + offset], at: start + offset) }
                value = value * 85 + UInt64(digit)
            }
            let bytes = characters - 1
            guard value < UInt64(1) << (8 * bytes) else { throw .overflow(at: start) }
            for shift in stride(from: 8 * (bytes - 1), through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
            start += characters
        }
        return output
    }
}

/// Why a string is not extended Z85.
public enum Z85Error: Error, Equatable, CustomStringConvertible {
    /// A length of 1 modulo 5: a lone character cannot encode a byte.
    case length(Int)
    case character(UInt8, at: Int)
    /// The group starting here holds more than its bytes can.
    case overflow(at: Int)

    public var description: String {
        switch self {
        case .length(let count): "\(count) characters: a length of 1 modulo 5 is not extended Z85"
        case .character(let byte, let offset): "byte 0x\(String(byte, radix: 16)) at \(offset) is not in the Z85 alphabet"
        case .overflow(let offset): "the group at \(offset) is larger than its bytes can hold"
        }
    }
}
