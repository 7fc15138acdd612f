import Foundation
import FuzzSupport
import HeraldDelivery

// What APNs and FCM answer, as the delivery code reads it once HTTP/2 has carried it: the
// input is an HTTP message written as text (FuzzSupport's HTTPMessageText) whose first line is
// the status. Both readers, and the decision each makes, run on every input; a Retry-After wait
// must stay within RetryAfter's bounds.

enum Fixture {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
}

func checkRetryAfter(_ wait: Duration?) {
    guard let wait else { return }
    require(wait >= .zero && wait <= RetryAfter.maximum, "a Retry-After wait of \(wait) is out of bounds")
}

runFuzzer { buffer in
    let text = HTTPMessageText(Array(buffer))
    var headers = HTTP2Fields()
    for (name, values) in text.headers {
        for value in values { headers.add(name: name, value: value) }
    }
    let status = Int(text.firstLine.trimmingCharacters(in: .whitespaces)) ?? 500
    let response = HTTP2Response(status: status, headers: headers, body: text.body)

    let apns = APNSResponse(response)
    checkRetryAfter(apns.retryAfter)
    _ = apns.decision
    let fcm = FCMResponse(response)
    checkRetryAfter(fcm.retryAfter)
    _ = fcm.decision
    for value in text.headers["retry-after"] ?? [] {
        checkRetryAfter(RetryAfter.parse(value, now: Fixture.now))
    }
}
