import Configuration
import Synchronization

/// Records which provider answered each key, so `--print-config` can say where a value came from
/// and a provider's parse error is reported instead of silently falling through.
final class SourceAudit: AccessReporter {
    enum Origin {
        case found(index: Int)
        case failed(index: Int, error: String)
        case missing
    }

    private let events = Mutex<[[String]: [AccessEvent.ProviderResult]]>([:])

    func report(_ event: AccessEvent) {
        self.events.withLock { $0[event.metadata.key.components] = event.providerResults }
    }

    func origin(of components: [String]) -> Origin {
        let results = self.events.withLock { $0[components] } ?? []
        for (index, result) in results.enumerated() {
            switch result.result {
            case .success(let lookup) where lookup.value != nil:
                return .found(index: index)
            case .success:
                continue
            case .failure(let error):
                return .failed(index: index, error: "\(error)")
            }
        }
        return .missing
    }
}
