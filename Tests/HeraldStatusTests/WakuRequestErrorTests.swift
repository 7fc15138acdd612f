import Foundation
import Hummingbird
import Testing

@testable import HeraldStatus

/// A refused `/waku/v1/messages` body is described in the message's terms, not with the
/// decoder's debug text.
struct WakuRequestErrorTests {
    func problem(_ body: String) -> String {
        do {
            _ = try StatusRoutes<BasicRequestContext>.decode(Data(body.utf8))
            return "decoded"
        } catch {
            return WakuRequestError.problem(error)
        }
    }

    @Test func aMissingOrMistypedFieldIsNamed() {
        #expect(problem(#"{"contentTopic":"/waku/1/0x01020304/rfc26","version":1}"#) == "`payload` is missing")
        #expect(problem(#"[{"payload":"AA==","contentTopic":7,"version":1}]"#) == "`[0].contentTopic` has the wrong type")
        #expect(problem("not json") == "it is not JSON")
        let message = WakuRequestError.notMessages(DecodingError.keyNotFound(AnyKey("payload"), .init(codingPath: [], debugDescription: "Swift.DecodingError internals")))
        #expect(!message.message.contains("Swift."))
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { self.stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
