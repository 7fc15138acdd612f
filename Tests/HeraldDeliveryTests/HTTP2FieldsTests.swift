@testable import HeraldDelivery
import NIOHPACK
import Testing

struct HTTP2FieldsTests {
    @Test func fieldsComeBackInOrderWithWhetherTheyMayBeIndexed() {
        var fields = HTTP2Fields()
        fields.add(name: ":path", value: "/3/device/ab", indexable: false)
        fields.add(name: "apns-topic", value: "im.herald.app")
        fields.add(name: "empty", value: "")
        #expect(fields.count == 3)
        #expect(
            fields.fields == [
                .init(name: ":path", value: "/3/device/ab", indexable: false),
                .init(name: "apns-topic", value: "im.herald.app", indexable: true),
                .init(name: "empty", value: "", indexable: true),
            ]
        )
    }

    @Test func firstFindsANameWhateverItsASCIICase() {
        let fields: HTTP2Fields = ["retry-after": "120", "Apns-Id": "x", "apns-id": "y"]
        #expect(fields.first(name: "Retry-After") == "120")
        #expect(fields.first(name: "apns-id") == "x")
        #expect(fields.first(name: "apns-i") == nil)
        // Bytes that differ only in bit 5 and are no letters are different names.
        let punctuation: HTTP2Fields = ["a@": "1"]
        #expect(punctuation.first(name: "a`") == nil)
    }

    @Test func aStatusIsThreeDigits() {
        #expect((["apns-id": "x", ":status": "410"] as HTTP2Fields).status == 410)
        #expect(([":status": "1x0"] as HTTP2Fields).status == nil)
        #expect(([":status": "2000"] as HTTP2Fields).status == nil)
        #expect((["status": "200"] as HTTP2Fields).status == nil)
        // Only the first `:status` counts, as it did when read as a string.
        #expect(HTTP2Fields([(":status", "1x0"), (":status", "200")]).status == nil)
    }

    @Test func fieldsAppendedWholeKeepTheirFlags() {
        var head: HTTP2Fields = [":method": "POST"]
        var own = HTTP2Fields()
        own.add(name: "apns-id", value: "x", indexable: false)
        own.add(name: "content-type", value: "application/json")
        head.add(contentsOf: own)
        #expect(head.count == 3)
        #expect(head.fields.map(\.name) == [":method", "apns-id", "content-type"])
        #expect(head.fields.map(\.indexable) == [true, false, true])
    }

    @Test func hpackHeadersAndBackKeepNamesValuesAndIndexing() {
        var fields: HTTP2Fields = [":status": "200"]
        fields.add(name: "apns-id", value: "x", indexable: false)
        let headers = fields.hpackHeaders
        #expect(headers.first(name: "apns-id") == "x")
        #expect(headers.contains { $0.name == "apns-id" && $0.indexable == .nonIndexable })
        #expect(HTTP2Fields(headers) == fields)
    }

    @Test func namesAndValuesPastASCIIAreKeptAsBytes() {
        var fields = HTTP2Fields()
        let name: [UInt8] = [0xC3, 0xA9]
        let value: [UInt8] = [0x00, 0xFF]
        name.withUnsafeBufferPointer { name in value.withUnsafeBufferPointer { value in fields.add(name: name, value: value) } }
        #expect(fields.count == 1)
        #expect(fields.first(name: "é") == String(decoding: value, as: UTF8.self))
    }
}
