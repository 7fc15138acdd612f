/// Base58 with Bitcoin's alphabet, the encoding of Aries verkeys (RFC 0019's `kid` and
/// `sender`). No library of the Swift server ecosystem has it; it is a few lines.
enum Base58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
    static let digits: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (digit, character) in alphabet.enumerated() { table[Int(character)] = UInt8(digit) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits: [UInt8] = []  // base-58 digits, least significant first
        for byte in bytes.dropFirst(zeros) {
            var carry = Int(byte)
            for index in digits.indices {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        let text = [UInt8](repeating: alphabet[0], count: zeros) + digits.reversed().map { alphabet[Int($0)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// `nil` for a character outside the alphabet. Long inputs are refused: verkeys are 32 bytes.
    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count <= 128 else { return nil }
        let zeros = characters.prefix { $0 == alphabet[0] }.count
        var bytes: [UInt8] = []  // least significant first
        for character in characters.dropFirst(zeros) {
            let digit = digits[Int(character)]
            guard digit != 0xFF else { return nil }
            var carry = Int(digit)
            for index in bytes.indices {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xFF))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: zeros) + bytes.reversed()
    }
}
