import HTTPTypes
import Testing

@testable import HeraldSilent

/// A registration body past its size is "too large" (413), not "malformed" (400).
struct SilentErrorStatusTests {
    @Test func anOversizedBodyIs413() {
        #expect(SilentError.tooLarge("x").status == .contentTooLarge)
        #expect(SilentError.malformed("x").status == .badRequest)
    }
}
