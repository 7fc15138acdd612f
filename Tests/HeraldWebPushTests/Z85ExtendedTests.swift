import Foundation
import HeraldWebPush
import PropertyBased
import Testing

/// Extended Z85 against webpush-relay.md §6 and §8.4, and its strictness.
@Suite struct Z85ExtendedTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.replacingOccurrences(of: " ", with: "").utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static func base64URL(_ text: String) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Array(Data(base64Encoded: base64)!)
    }

    static let vectors: [(hex: String, z85: String)] = [
        ("864FD26FB559F75B", "HelloWorld"),
        ("864FD26FB559F75BB5", "HelloWorld2b"),
        ("86", "1N"),
        ("864F", "4:H"),
        ("864FD2", "esp$"),
        ("FF", "30"),
        ("FFFF", "960"),
        ("FFFFFF", "rr90"),
        ("00", "00"),
        ("000000", "0000"),
        ("864FD26FB559F75B010203", "HelloWorld09c6"),
        ("", ""),
    ]

    @Test(arguments: Self.vectors)
    func theVectorsOfTheRelayPage(hex: String, z85: String) throws {
        #expect(Z85Extended.encode(Self.bytes(hex)) == z85)
        #expect(try Z85Extended.decode(z85) == Self.bytes(hex))
    }

    @Test func theRelayFieldsOfTheRFC8291Example() throws {
        let salt = Self.base64URL("DGv6ra1nlYgDCS1FRnbzlw")
        #expect(Z85Extended.encode(salt) == "3#tZwT.i]P0%{LFmT1x&")
        let asPublic = Self.base64URL("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        #expect(Z85Extended.encode(asPublic) == "1PyjHS$1ulKXJk=bLKo0L-F9:zitbV*QTeHqZ=gdap.L2DWARqX/q]tM@<VT>@A!+fea3kIS<LBYlJD70f")
        let body = Self.base64URL(
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )
        #expect(body.count == 144)
        let p = Z85Extended.encode(body)
        #expect(p.count == 180)
        #expect(p == "3#tZwT.i]P0%{LFmT1x&000Mgk)mfy]S5C^AGJ#6sr)M4rfSCffL#%TgtxvoNO$RBF/>LaDv71Qv7Es4D6?XuLiB#F0532sQkFg7yRa&M(<@VN?DJsoX]yV$Q]>ca2{mUy]r+[>o5kxhDkTMhUW3>AtpIlev+1N<rZD7IFH>R#]E=AMXngoL")
    }

    @Test func everyLengthFromNothingTo64RoundTrips() async {
        await propertyCheck(count: 400, input: Gen.uint8().array(of: 0...64)) { bytes in
            let text = Z85Extended.encode(bytes)
            #expect(text.utf8.count == Z85Extended.encodedLength(of: bytes.count))
            #expect(text.utf8.allSatisfy { Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8).contains($0) })
            #expect(!text.contains("\"") && !text.contains("\\"), "nothing a JSON string must escape")
            #expect((try? Z85Extended.decode(text)) == bytes)
        }
    }

    @Test func everyLengthIsCoveredAtLeastOnce() throws {
        for count in 0...64 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(try Z85Extended.decode(Z85Extended.encode(bytes)) == bytes, "\(count) bytes")
        }
    }

    @Test func lengthsOfOneModuloFiveAreRefused() {
        for text in ["0", "000000", "HelloWorld0"] {
            #expect(throws: Z85Error.length(text.utf8.count)) { try Z85Extended.decode(text) }
        }
    }

    @Test func charactersOutsideTheAlphabetAreRefused() {
        for (text, offset) in [("Hello Worl", 5), ("1\"", 1), ("\\N", 0), ("Hel,oWorld", 3), ("1_", 1), ("1~", 1), ("1|", 1), ("é0", 0)] {
            #expect(throws: Z85Error.self, "\(text)") { try Z85Extended.decode(text) }
            if let byte = text.utf8.dropFirst(offset).first, Array(text.utf8).count > offset {
                #expect(throws: Z85Error.character(byte, at: offset)) { try Z85Extended.decode(text) }
            }
        }
    }

    @Test func groupsLargerThanTheirBytesAreRefused() throws {
        // 85^5 - 1 > 2^32 - 1; and tails above 2^8, 2^16, 2^24.
        #expect(throws: Z85Error.overflow(at: 0)) { try Z85Extended.decode("#####") }
        #expect(throws: Z85Error.overflow(at: 10)) { try Z85Extended.decode("HelloWorld31") }
        #expect(throws: Z85Error.overflow(at: 0)) { try Z85Extended.decode("961") }
        #expect(throws: Z85Error.overflow(at: 0)) { try Z85Extended.decode("rr91") }
        // The largest values of each size still decode.
        #expect(try Z85Extended.decode("%nSc0") == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try Z85Extended.decode("30") == [0xFF])
    }
}
