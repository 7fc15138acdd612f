import HeraldCore
import HeraldCrypto
import Testing

@Suite struct CryptoErrorTests {
    @Test func errorsAreEqualByCode() {
        #expect(CryptoError(.invalidSignature, "one") == CryptoError(.invalidSignature, "two"))
        #expect(CryptoError(.invalidSignature, "one") != CryptoError(.invalidPublicKey, "one"))
    }

    @Test func descriptionLeadsWithTheStableCode() {
        #expect(CryptoError(.authenticationFailed, "bad tag").description == "crypto.authentication_failed: bad tag")
    }
}
