import HeraldCore
import HeraldTesting
import Testing

@Suite struct SyntheticCommandsTests {
    @Test func sameSeedSameCommands() {
        #expect(SyntheticCommands(seed: 1).commands(0..<200) == SyntheticCommands(seed: 1).commands(0..<200))
    }

    @Test func differentSeedsDiffer() {
        #expect(SyntheticCommands(seed: 1).commands(0..<50) != SyntheticCommands(seed: 2).commands(0..<50))
    }

    @Test func everyCommandKindAppears() {
        var kinds = Set<String>()
        for command in SyntheticCommands(seed: 9).commands(0..<1_000) {
            switch command {
            case .register: kinds.insert("register")
            case .unregister: kinds.insert("unregister")
            case .disableToken: kinds.insert("disable")
            }
        }
        #expect(kinds == ["register", "unregister", "disable"])
    }
}
