import Foundation
import HeraldCore
import Testing

@Suite struct JSONReaderTests {
    func parse(_ text: String) -> JSONValue? {
        try? JSONValue(parsing: Array(text.utf8))
    }

    @Test func readsEveryKindOfValueInOrder() throws {
        let value = try JSONValue(parsing: Array(#" {"b": [1, -2.5e3, true, false, null], "a": {"x": "y"}, "c": ""} "#.utf8))
        #expect(value == .object([
            ("b", .array([.number(1), .number(-2500), .bool(true), .bool(false), .null])),
            ("a", .object([("x", .string("y"))])),
            ("c", .string("")),
        ]))
    }

    @Test func decodesEscapesAndSurrogatePairs() {
        #expect(parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀"))
        #expect(parse(#""plain é""#) == .string("plain é"))
    }

    @Test func duplicateKeysKeepTheLastValue() {
        #expect(parse(#"{"a":1,"b":2,"a":3}"#) == .object([("a", .number(3)), ("b", .number(2))]))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1", "NaN",
        "\"unterminated", "\"tab\there\"", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
        "tru", "nul", "[1] [2]", "{\"a\":1} x", "'a'", "1e400",
    ])
    func refusesWhatIsNotJSON(text: String) {
        #expect(parse(text) == nil, "\(text)")
    }

    @Test func refusesInvalidUTF8() {
        #expect((try? JSONValue(parsing: [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")])) == nil)
        #expect((try? JSONValue(parsing: [UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "\"")])) == nil)
    }

    /// The integer field `k` of an object whose other fields are skipped.
    static func known(_ text: String) throws(JSONReadError) -> Int? {
        try JSONReader.read(Array(text.utf8)) { reader throws(JSONReadError) in
            var found: Int?
            try reader.readObject { reader, key throws(JSONReadError) in
                if key == "k" { found = try reader.readInt() } else { try reader.skipValue() }
            }
            return found
        }
    }

    @Test func skipValuePassesOverAnyValueAndStillChecksIt() throws {
        #expect(try Self.known(#"{"a":{"b":[1,{"c":null}],"d":"\u00e9"},"e":[true,false,-1.5e3],"k":7}"#) == 7)
        #expect(throws: JSONReadError.self) { try Self.known(#"{"a":[1,],"k":7}"#) }
        #expect(throws: JSONReadError.self) { try Self.known(#"{"a":"\x","k":7}"#) }
    }

    /// Many keys, one of them twice: the last value wins and the order of first appearance stays.
    @Test func largeObjectsKeepEachKeyOnce() throws {
        let keys = (0..<20_000).map { "k\($0)" }
        let text = "{" + keys.map { #""\#($0)":1"# }.joined(separator: ",") + #","k7":2}"#
        guard case .object(let pairs) = try JSONValue(parsing: Array(text.utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(pairs.count == 20_000)
        #expect(pairs[7].0 == "k7" && pairs[7].1 == .number(2))
        #expect(pairs.last?.0 == "k19999")
    }

    @Test func refusesNestingBeyondTheLimit() {
        let deep = String(repeating: "[", count: JSONReader.maximumDepth + 1) + String(repeating: "]", count: JSONReader.maximumDepth + 1)
        let allowed = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        #expect(parse(deep) == nil)
        #expect(parse(allowed) != nil)
    }

    static func int(_ text: String) -> Int64? {
        try? JSONReader.read(Array(text.utf8)) { reader throws(JSONReadError) in try reader.readInt64() }
    }

    @Test func integersAreExactAndRefuseFractionsExponentsAndOverflow() throws {
        #expect(Self.int("9223372036854775807") == Int64.max)
        #expect(Self.int("-9223372036854775808") == Int64.min)
        #expect(Self.int("9007199254740993") == 9_007_199_254_740_993)
        #expect(Self.int("9223372036854775808") == nil)
        #expect(Self.int("1.0") == nil)
        #expect(Self.int("1e2") == nil)
        #expect(Self.int("\"1\"") == nil)
        #expect(Self.int("-0") == 0)
    }

    @Test func typedReadsRefuseOtherTypes() throws {
        #expect((try? JSONReader.read(Array("1".utf8)) { reader throws(JSONReadError) in try reader.readBool() }) == nil)
        #expect((try? JSONReader.read(Array("true".utf8)) { reader throws(JSONReadError) in try reader.readString() }) == nil)
        #expect((try? JSONReader.read(Array("[\"a\",1]".utf8)) { reader throws(JSONReadError) in try reader.readStrings() }) == nil)
        let absent = try JSONReader.read(Array("null".utf8)) { reader throws(JSONReadError) in try reader.readOptional { r throws(JSONReadError) in try r.readInt() } }
        #expect(absent == nil)
        let present = try JSONReader.read(Array(" 7".utf8)) { reader throws(JSONReadError) in try reader.readOptional { r throws(JSONReadError) in try r.readInt() } }
        #expect(present == 7)
    }

    @Test func errorsSayWhatWasExpectedAndWhere() {
        #expect(throws: JSONReadError(expected: "':' after an object key", offset: 5)) {
            try JSONValue(parsing: Array(#"{"a" 1}"#.utf8))
        }
    }

    /// Foundation's parser is the reference for what is JSON; object key order aside, both read
    /// the same values.
    @Test(arguments: [
        #"{"notifications":[{"tokens":["a","b"],"platform":1,"data":{"k":[1,2,{"n":null}]},"volume":0.25}]}"#,
        #"[-0.0, 1E+2, 3e-2, 123456789012, "\u0000\u001f", "\ud834\udd1e"]"#,
        #""line\nbreak""#,
    ])
    func agreesWithFoundation(text: String) throws {
        let ours = try JSONValue(parsing: Array(text.utf8))
        let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(Self.sorted(ours) == Self.sorted(theirs))
    }

    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let values): .array(values.map(sorted))
        case .object(let pairs): .object(pairs.map { ($0.0, sorted($0.1)) }.sorted { $0.0 < $1.0 })
        default: value
        }
    }
}
