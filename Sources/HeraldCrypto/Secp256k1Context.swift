internal import CSecp256k1

/// The one libsecp256k1 context the module uses.
///
/// `@unchecked Sendable` because libsecp256k1 documents a context as safe to use from many threads at once once it
/// has been created (and randomized); only `secp256k1_context_randomize`, `_clone` and `_destroy` need exclusive
/// access, and this class calls them only in `init` and `deinit`, before and after any sharing. The stored pointer is
/// never reassigned.
final class Secp256k1Context: @unchecked Sendable {
    static let shared = Secp256k1Context()

    let pointer: OpaquePointer

    private init() {
        // SECP256K1_CONTEXT_NONE suffices for every operation since libsecp256k1 0.2 (the SIGN and VERIFY flags are
        // deprecated aliases of it).
        guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            fatalError("secp256k1_context_create failed")
        }
        // Randomization blinds signing and public-key generation against side channels. A failure leaves the
        // context valid, just unblinded.
        var seed = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in seed.indices { seed[index] = generator.next() }
        _ = secp256k1_context_randomize(context, seed)
        self.pointer = context
    }

    deinit {
        secp256k1_context_destroy(self.pointer)
    }
}
