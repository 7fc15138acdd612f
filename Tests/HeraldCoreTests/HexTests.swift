import HeraldCore
import Testing

@Suite struct HexTests {
    @Test func encodesLowercase() {
        #expect(Hex.encode([0x00, 0xAB, 0x0F, 0xFF]) == "00ab0fff")
    }

    @Test func decodesEitherCase() {
        #expect(Hex.decode("00aB0fFF") == [0x00, 0xAB, 0x0F, 0xFF])
    }

    @Test(arguments: ["abc", "zz", "0g", " 0"])
    func refusesMalformedInput(text: String) {
        #expect(Hex.decode(text) == nil)
    }
}
