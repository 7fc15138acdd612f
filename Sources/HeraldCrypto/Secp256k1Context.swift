@preconcurrency internal import CSecp256k1

/// The one libsecp256k1 context the module uses.
///
/// `@unchecked Sendable` because libsecp256k1 documents a context as safe to use from many threads at once once it
/// has been created (and randomized); only `secp256k1_context_randomize`, `_clone` and `_destroy` need exclusive
/// access, and this class calls them only in `init` and `deinit`, before and after any sharing. The stored pointer is
/// never reassigned.
final class Secp256k1Context: @unchecked Sendable {  // safe: read-only after init, see above
    static let shared = Secp256k1Context()

    let pointer: OpaquePointer
    /// `false` for the library's static context, which must not be destroyed.
    private let owned: Bool

    private init() {
        // SECP256K1_CONTEXT_NONE suffices for every operation since libsecp256k1 0.2 (the SIGN and VERIFY flags are
        // deprecated aliases of it).
        guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            // Only an allocation failure gets here. The library's static context does every
            // operation, just without blinding, which beats taking the node down.
            self.pointer = libraryStaticContext
            self.owned = false
            return
        }
        // Randomization blinds signing and public-key generation against side channels. A failure leaves the
        // context valid, just unblinded.
        var seed = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in seed.indices { seed[index] = generator.next() }
        _ = secp256k1_context_randomize(context, seed)
        self.pointer = context
        self.owned = true
    }

    deinit {
        if self.owned { secp256k1_context_destroy(self.pointer) }
    }
}

/// libsecp256k1's `const` static context. C exposes it as a global variable, which Swift cannot
/// prove unchanging; the library declares it `const` and never writes it.
nonisolated(unsafe) private let libraryStaticContext: OpaquePointer = secp256k1_context_static
