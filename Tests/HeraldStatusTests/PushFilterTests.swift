import Foundation
import HeraldStatus
import HeraldTesting
import Testing

/// status.md §7.3, one case each. A filtered notification is reported as a success.
@Suite struct PushFilterTests {
    let chat = StatusClient.hashed("status")
    let otherChat = StatusClient.hashed("other-chat")

    func scenario(
        configure: @escaping (inout Protobuf_PushNotificationRegistration) -> Void,
        _ body: @escaping (StatusScenario) async throws -> Void
    ) async throws {
        try await StatusServerHarness.run { harness in
            let scenario = StatusScenario(harness)
            #expect(try await scenario.register(configure: configure).success)
            try await body(scenario)
        }
    }

    @Test func messageIsPushedWithoutLists() async throws {
        try await self.scenario(configure: { _ in }) { s in
            let author = StatusClient.hashed(s.senderKeyString)
            let (reports, pushed) = try await s.push(type: .message, chatID: author, author: author)
            #expect(reports.map(\.success) == [true])
            #expect(pushed)
        }
    }

    @Test func messageInBlockedChatIsFiltered() async throws {
        let chat = self.chat
        try await self.scenario(configure: { $0.blockedChatList = [Data(chat)] }) { s in
            let (reports, pushed) = try await s.push(type: .message, chatID: chat, author: StatusClient.hashed(s.senderKeyString))
            #expect(reports.map(\.success) == [true])
            #expect(!pushed)
        }
    }

    @Test func messageInMutedChatIsFiltered() async throws {
        let chat = self.chat
        try await self.scenario(configure: { $0.mutedChatList = [Data(chat)] }) { s in
            let (reports, pushed) = try await s.push(type: .message, chatID: chat, author: StatusClient.hashed(s.senderKeyString))
            #expect(reports.map(\.success) == [true])
            #expect(!pushed)
        }
    }

    @Test func messageFromBlockedAuthorIsFiltered() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            let author = StatusClient.hashed(s.senderKeyString)
            #expect(try await s.register { $0.blockedChatList = [Data(author)] }.success)
            let (reports, pushed) = try await s.push(type: .message, chatID: self.chat, author: author)
            #expect(reports.map(\.success) == [true])
            #expect(!pushed)
        }
    }

    @Test func mentionInAllowedChatIsPushed() async throws {
        let chat = self.chat
        try await self.scenario(configure: { $0.allowedMentionsChatList = [Data(chat)] }) { s in
            let (reports, pushed) = try await s.push(type: .mention, chatID: chat, author: StatusClient.hashed(s.senderKeyString))
            #expect(reports.map(\.success) == [true])
            #expect(pushed)
            #expect(s.harness.delivery.pushes.last?.message == "Someone mentioned you")
        }
    }

    @Test func mentionOutsideAllowedChatsIsFiltered() async throws {
        let chat = self.chat
        let other = self.otherChat
        try await self.scenario(configure: { $0.allowedMentionsChatList = [Data(chat)] }) { s in
            let (reports, pushed) = try await s.push(type: .mention, chatID: other, author: StatusClient.hashed(s.senderKeyString))
            #expect(reports.map(\.success) == [true])
            #expect(!pushed)
        }
    }

    @Test func mentionIsFilteredWhenMentionsAreBlocked() async throws {
        let chat = self.chat
        try await self.scenario(configure: { $0.allowedMentionsChatList = [Data(chat)]; $0.blockMentions = true }) { s in
            let (_, pushed) = try await s.push(type: .mention, chatID: chat, author: StatusClient.hashed(s.senderKeyString))
            #expect(!pushed)
        }
    }

    /// The muted list is not consulted for mentions (status-go's `TestPushNotificationMentions`).
    @Test func mentionInMutedButAllowedChatIsPushed() async throws {
        let chat = self.chat
        try await self.scenario(configure: { $0.allowedMentionsChatList = [Data(chat)]; $0.mutedChatList = [Data(chat)] }) { s in
            let (_, pushed) = try await s.push(type: .mention, chatID: chat, author: StatusClient.hashed(s.senderKeyString))
            #expect(pushed)
        }
    }

    @Test func mentionFromBlockedAuthorIsFiltered() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            let author = StatusClient.hashed(s.senderKeyString)
            #expect(try await s.register { $0.allowedMentionsChatList = [Data(self.chat)]; $0.blockedChatList = [Data(author)] }.success)
            let (_, pushed) = try await s.push(type: .mention, chatID: self.chat, author: author)
            #expect(!pushed)
        }
    }

    @Test func communityJoinRequestIsPushedUnlessAuthorBlocked() async throws {
        try await StatusServerHarness.run { harness in
            let s = StatusScenario(harness)
            #expect(try await s.register().success)
            let author = StatusClient.hashed(s.senderKeyString)
            let (reports, pushed) = try await s.push(type: .requestToJoinCommunity, chatID: self.chat, author: author)
            #expect(reports.map(\.success) == [true])
            #expect(pushed)
            #expect(s.harness.delivery.pushes.last?.message == "Someone requested to join a community you are an admin of")
            #expect(try await s.register(version: 2) { $0.blockedChatList = [Data(author)] }.success)
            #expect(try await s.push(type: .requestToJoinCommunity, chatID: self.chat, author: author).pushed == false)
        }
    }

    /// Types status-go has no rule for are pushed, with the mention text.
    @Test func unknownTypeIsPushedWithMentionText() async throws {
        try await self.scenario(configure: { _ in }) { s in
            let (reports, pushed) = try await s.push(type: .UNRECOGNIZED(9), chatID: self.chat, author: self.otherChat)
            #expect(reports.map(\.success) == [true])
            #expect(pushed)
            #expect(s.harness.delivery.pushes.last?.message == "Someone mentioned you")
        }
    }

    /// Herald's addition (ARCHITECTURE.md): a registration with `enabled: false` is reported as
    /// a success and not pushed.
    @Test func disabledRegistrationIsFiltered() async throws {
        try await self.scenario(configure: { $0.enabled = false }) { s in
            let (reports, pushed) = try await s.push(type: .message, chatID: self.chat, author: self.otherChat)
            #expect(reports.map(\.success) == [true])
            #expect(!pushed)
        }
    }

    @Test func wrongAccessTokenIsReported() async throws {
        try await self.scenario(configure: { _ in }) { s in
            let (reports, pushed) = try await s.push(
                type: .message,
                chatID: self.chat,
                author: self.otherChat,
                accessToken: "e6ae4fde-bb65-11ea-b3de-0242ac130004"
            )
            #expect(reports.map(\.success) == [false])
            #expect(reports.map(\.error) == [.wrongToken])
            #expect(!pushed)
        }
    }
}
