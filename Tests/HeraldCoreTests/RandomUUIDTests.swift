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

    /// Many at once cross the 256-byte limit of one `getentropy` call: each is still a version 4
    /// UUID, and none repeats, within a batch or across the chunks of one.
    @Test(arguments: [0, 1, 2, 16, 17, 1000])
    func manyAtOnceAreDistinctVersion4UUIDs(count: Int) throws {
        let ids = RandomUUID.lowercased(count: count)
        #expect(ids.count == count)
        #expect(Set(ids).count == count)
        for text in ids {
            let parsed = try #require(UUID(uuidString: text))
            #expect(parsed.uuidString.lowercased() == text)
            #expect(parsed.uuid.6 >> 4 == 4)
            #expect(parsed.uuid.8 >> 6 == 0b10)
        }
    }
}
