/// The Keccak-f[1600] permutation with a sponge over it: the one implementation behind `Keccak256` and `SHAKE256`.
///
/// The state is 25 little-endian 64-bit lanes; byte `i` of the state is byte `i % 8` of lane `i / 8` (FIPS 202 §B.1).
/// Absorbing XORs input into the first `rate` bytes and permutes after each full block. Padding is the "pad10*1" rule
/// with the domain bits folded into its first byte: `0x01` for original Keccak (as Ethereum uses it), `0x06` for
/// SHA3-*, `0x1F` for SHAKE*; the final `0x80` goes into the last byte of the block (both land in one byte when a
/// single byte of the block is left).
struct KeccakSponge: Sendable {
    /// The block size in bytes; 136 for a 512-bit capacity (Keccak-256, SHA3-256, SHAKE-256).
    let rate: Int
    /// The first padding byte, carrying the domain-separation bits.
    let padding: UInt8
    private var lanes = [UInt64](repeating: 0, count: 25)
    /// While absorbing, bytes already XORed into the current block; while squeezing, bytes already read from it.
    private var offset = 0
    private var squeezing = false

    init(rate: Int, padding: UInt8) {
        precondition(rate > 0 && rate < 200 && rate % 8 == 0, "Keccak rate must be a whole number of lanes below 200")
        self.rate = rate
        self.padding = padding
    }

    mutating func absorb(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            self.absorb(UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { self.absorb($0) }
        }
    }

    mutating func absorb(_ bytes: UnsafeRawBufferPointer) {
        precondition(!self.squeezing, "cannot absorb into a Keccak sponge after squeezing")
        let rate = self.rate
        var offset = self.offset
        var index = 0
        let count = bytes.count
        self.lanes.withUnsafeMutableBufferPointer { lanes in
            while index < count {
                if offset & 7 == 0 && count - index >= 8 {
                    // Whole lanes at a time while aligned; the rate is a multiple of 8, so a lane never straddles
                    // the end of the block.
                    let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    lanes[offset >> 3] ^= UInt64(littleEndian: word)
                    offset += 8
                    index += 8
                } else {
                    lanes[offset >> 3] ^= UInt64(bytes[index]) << UInt64((offset & 7) * 8)
                    offset += 1
                    index += 1
                }
                if offset == rate {
                    Self.permute(lanes.baseAddress!)
                    offset = 0
                }
            }
        }
        self.offset = offset
    }

    /// Pads (on the first call) and reads `count` bytes of output; later calls continue the output stream.
    mutating func squeeze(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "output length must not be negative")
        let rate = self.rate
        var offset = self.offset
        let squeezing = self.squeezing
        let padding = self.padding
        let output = self.lanes.withUnsafeMutableBufferPointer { lanes in
            if !squeezing {
                lanes[offset >> 3] ^= UInt64(padding) << UInt64((offset & 7) * 8)
                lanes[(rate - 1) >> 3] ^= UInt64(0x80) << UInt64(((rate - 1) & 7) * 8)
                Self.permute(lanes.baseAddress!)
                offset = 0
            }
            return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                for index in 0..<count {
                    if offset == rate {
                        Self.permute(lanes.baseAddress!)
                        offset = 0
                    }
                    out[index] = UInt8(truncatingIfNeeded: lanes[offset >> 3] >> UInt64((offset & 7) * 8))
                    offset += 1
                }
                initialized = count
            }
        }
        self.offset = offset
        self.squeezing = true
        return output
    }

    // MARK: - Keccak-f[1600]

    private static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]

    /// ρ rotation amounts, listed in the order π visits the lanes (starting from lane 1).
    private static let rotations: [UInt64] = [
        1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44,
    ]

    /// π: the lane each step of the ρπ walk moves to.
    private static let piLanes: [Int] = [
        10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1,
    ]

    @inline(__always)
    private static func rotateLeft(_ value: UInt64, _ amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 &- amount))
    }

    /// The 24 rounds of θ, ρ, π, χ and ι on 25 lanes.
    static func permute(_ a: UnsafeMutablePointer<UInt64>) {
        Self.roundConstants.withUnsafeBufferPointer { roundConstants in
            Self.rotations.withUnsafeBufferPointer { rotations in
                Self.piLanes.withUnsafeBufferPointer { piLanes in
                    for round in 0..<24 {
                        // θ
                        let c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20]
                        let c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21]
                        let c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22]
                        let c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23]
                        let c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24]
                        let d0 = c4 ^ rotateLeft(c1, 1)
                        let d1 = c0 ^ rotateLeft(c2, 1)
                        let d2 = c1 ^ rotateLeft(c3, 1)
                        let d3 = c2 ^ rotateLeft(c4, 1)
                        let d4 = c3 ^ rotateLeft(c0, 1)
                        for row in stride(from: 0, to: 25, by: 5) {
                            a[row] ^= d0
                            a[row + 1] ^= d1
                            a[row + 2] ^= d2
                            a[row + 3] ^= d3
                            a[row + 4] ^= d4
                        }
                        // ρ and π
                        var carried = a[1]
                        for step in 0..<24 {
                            let lane = piLanes[step]
                            let next = a[lane]
                            a[lane] = rotateLeft(carried, rotations[step])
                            carried = next
                        }
                        // χ
                        for row in stride(from: 0, to: 25, by: 5) {
                            let b0 = a[row]
                            let b1 = a[row + 1]
                            let b2 = a[row + 2]
                            let b3 = a[row + 3]
                            let b4 = a[row + 4]
                            a[row] = b0 ^ (~b1 & b2)
                            a[row + 1] = b1 ^ (~b2 & b3)
                            a[row + 2] = b2 ^ (~b3 & b4)
                            a[row + 3] = b3 ^ (~b4 & b0)
                            a[row + 4] = b4 ^ (~b0 & b1)
                        }
                        // ι
                        a[0] ^= roundConstants[round]
                    }
                }
            }
        }
    }
}
