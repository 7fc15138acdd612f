import Foundation
@testable import HeraldCore
import Testing

@Suite struct RandomUUIDTests {
    @Test func isACanonicalLowercaseVersion4UUID() throws {
        let text = RandomUUID.lowercased()
        let parsed = try #require(UUID(uuidString: text))
        #expect(parsed.uuidString.lowercased() == text)
        let bytes = parsed.uuid
        #expect(bytes.6 >> 4 == 4)
        #expect(bytes.8 >> 6 == 0b10)
    }

    @Test func writesTheBitsItIsGiven() {
        #expect(RandomUUID.lowercased(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210) == "01234567-89ab-4def-bedc-ba9876543210")
    }

    @Test func doesNotRepeat() {
        let ids = Set((0..<1000).map { _ in RandomUUID.lowercased() })
        #expect(ids.count == 1000)
    }
}
