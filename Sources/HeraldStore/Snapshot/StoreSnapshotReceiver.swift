import Crypto
import Foundation

extension StoreSnapshot {
    /// Reads a snapshot as its bytes arrive, in chunks of any size: checks the magic and the
    /// header, writes the data file's bytes to `output` as they come, and accepts the snapshot
    /// only when the trailer's checksum matches what came before it.
    struct Receiver {
        private enum Stage {
            case magic
            case header
            case data(remaining: Int)
            case trailer
            case done
        }

        private let output: FileHandle
        private var stage = Stage.magic
        private var buffered: [UInt8] = []
        private var hash = SHA256()
        private(set) var header: Header?

        init(writingDataTo output: FileHandle) {
            self.output = output
        }

        mutating func consume(_ bytes: some Collection<UInt8>) throws(StoreError) {
            var input = ArraySlice(bytes)
            while !input.isEmpty {
                switch self.stage {
                case .magic:
                    let wanted = StoreSnapshot.magic.count - self.buffered.count
                    self.buffered += input.prefix(wanted)
                    input = input.dropFirst(wanted)
                    // Refused on its first bytes, not after a whole file's worth.
                    guard StoreSnapshot.magic.starts(with: self.buffered) else {
                        throw StoreError(.corrupt, "not a Herald store snapshot (it does not begin with \"herald-snapshot 1\")")
                    }
                    guard self.buffered.count == StoreSnapshot.magic.count else { continue }
                    self.hash.update(data: self.buffered)
                    self.buffered = []
                    self.stage = .header
                case .header:
                    guard let newline = input.firstIndex(of: UInt8(ascii: "\n")) else {
                        self.buffered += input
                        input = []
                        if self.buffered.count > StoreSnapshot.maximumHeaderLength {
                            throw StoreError(.corrupt, "the snapshot's header line is longer than \(StoreSnapshot.maximumHeaderLength) bytes")
                        }
                        continue
                    }
                    self.buffered += input[..<newline]
                    input = input[(newline + 1)...]
                    let header: Header
                    do {
                        header = try JSONDecoder().decode(Header.self, from: Data(self.buffered))
                    } catch {
                        throw StoreError(.corrupt, "the snapshot's header does not decode: \(error)")
                    }
                    guard header.bytes > 0 else { throw StoreError(.corrupt, "the snapshot's header gives no data (\(header.bytes) bytes)") }
                    self.hash.update(data: self.buffered + [UInt8(ascii: "\n")])
                    self.buffered = []
                    self.header = header
                    self.stage = .data(remaining: header.bytes)
                case .data(let remaining):
                    let chunk = input.prefix(remaining)
                    input = input.dropFirst(chunk.count)
                    self.hash.update(data: chunk)
                    do {
                        try self.output.write(contentsOf: chunk)
                    } catch {
                        throw StoreError(.lmdb, "cannot write the snapshot's data: \(error)")
                    }
                    self.stage = remaining == chunk.count ? .trailer : .data(remaining: remaining - chunk.count)
                case .trailer:
                    let wanted = StoreSnapshot.trailerLength - self.buffered.count
                    self.buffered += input.prefix(wanted)
                    input = input.dropFirst(wanted)
                    guard self.buffered.count == StoreSnapshot.trailerLength else { continue }
                    let expected = Array("sha256 \(StoreSnapshot.hex(self.hash.finalize()))\n".utf8)
                    guard self.buffered == expected else {
                        throw StoreError(.corrupt, "the snapshot's checksum does not match its contents: damaged or cut short")
                    }
                    self.stage = .done
                case .done:
                    throw StoreError(.corrupt, "bytes after the snapshot's checksum")
                }
            }
        }

        /// The header, once the whole snapshot arrived and its checksum matched.
        func finish() throws(StoreError) -> Header {
            guard case .done = self.stage, let header = self.header else {
                let got = self.header.map { "\($0.bytes)-byte data file" } ?? "header"
                throw StoreError(.corrupt, "the snapshot ends early, before its checksum (its \(got) is incomplete)")
            }
            return header
        }
    }
}
