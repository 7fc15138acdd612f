@testable import HeraldDelivery
import NIOCore
import NIOEmbedded
import Testing

struct GatheredAnswersTests {
    let loop = EmbeddedEventLoop()

    private func response(_ status: Int) -> HTTP2Response {
        HTTP2Response(status: status, headers: [:], body: [])
    }

    private func statuses(_ gathered: GatheredAnswers) -> [Int?]? {
        var statuses: [Int?]?
        gathered.futureResult.assumeIsolated().whenSuccess { answers in statuses = answers.map { try? $0?.get().status } }
        self.loop.run()
        return statuses
    }

    @Test func answersComeTogetherBySlotOnceTheExpectedAreIn() {
        let gathered = GatheredAnswers(count: 3, on: self.loop)
        gathered.expect(2)
        gathered.answer(2, .success(self.response(410)))
        #expect(self.statuses(gathered) == nil, "one of two answers is no result")
        gathered.answer(0, .success(self.response(200)))
        #expect(self.statuses(gathered) == [200, nil, 410])
    }

    @Test func answersBeforeTheCountAreKept() {
        let gathered = GatheredAnswers(count: 2, on: self.loop)
        gathered.answer(1, .failure(HTTP2ConnectionError(.closed, "gone")))
        gathered.answer(0, .success(self.response(200)))
        #expect(self.statuses(gathered) == nil)
        gathered.expect(2)
        var answers: [Result<HTTP2Response, any Error>?] = []
        gathered.futureResult.assumeIsolated().whenSuccess { answers = $0 }
        self.loop.run()
        #expect(answers.count == 2)
        #expect(throws: HTTP2ConnectionError.self) { try answers[1]?.get() }
    }

    @Test func nothingExpectedCompletesAtOnce() {
        let gathered = GatheredAnswers(count: 2, on: self.loop)
        gathered.expect(0)
        #expect(self.statuses(gathered) == [nil, nil])
    }
}
