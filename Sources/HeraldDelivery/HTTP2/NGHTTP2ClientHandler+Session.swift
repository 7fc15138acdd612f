import CNGHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2

/// The `nghttp2_session` behind `NGHTTP2ClientHandler` and the C callbacks through which it
/// reports frames: each finds the handler through the session's user data, an unretained
/// pointer (the handler owns the session and deletes it once removed from the pipeline or in
/// `deinit`, never during one of its calls, and callbacks run only inside its calls).
extension NGHTTP2ClientHandler {
    struct SessionSetupFailed: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(self.call): \(NGHTTP2ClientHandler.describe(self.code))" }
    }

    static func makeSession(userData: UnsafeMutableRawPointer) throws -> OpaquePointer {
        var callbacks: OpaquePointer?
        let created = nghttp2_session_callbacks_new(&callbacks)
        guard created == 0, let callbacks else { throw SessionSetupFailed(call: "nghttp2_session_callbacks_new", code: created) }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, let userData else { return 0 }
            NGHTTP2ClientHandler.handler(userData).frameReceived(frame.pointee)
            return 0
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let userData else { return 0 }
            NGHTTP2ClientHandler.handler(userData).headerBlockBegan(frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let userData else { return 0 }
            NGHTTP2ClientHandler.handler(userData).headerReceived(
                streamID: frame.pointee.hd.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength)
            )
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            guard let userData else { return 0 }
            NGHTTP2ClientHandler.handler(userData).dataReceived(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            guard let userData else { return 0 }
            NGHTTP2ClientHandler.handler(userData).streamClosed(streamID, errorCode: errorCode)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, userData in
            // A request's HEADERS the session would not send (a GOAWAY came first, or its
            // deadline passed before it left): no stream was opened, so no close callback will
            // end it.
            guard let frame, let userData, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
            let handler = NGHTTP2ClientHandler.handler(userData)
            handler.outgoing[frame.pointee.hd.stream_id] = nil
            handler.finish(frame.pointee.hd.stream_id, .closed)
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, userData in
            guard let userData, let message else { return 0 }
            let text = UnsafeRawBufferPointer(start: message, count: length)
            NGHTTP2ClientHandler.handler(userData).sessionError = String(decoding: text, as: UTF8.self)
            return 0
        }
        // What the peer did wrong reaches the handler here (a bad frame, a window overflow, an
        // HPACK error), and the GOAWAY libnghttp2 answers a connection error with is sent after.
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, code, userData in
            guard let frame, let userData else { return 0 }
            let type = NGHTTP2ClientHandler.frameTypeName(frame.pointee.hd.type)
            let text = "invalid \(type) frame on stream \(frame.pointee.hd.stream_id): \(NGHTTP2ClientHandler.describe(code))"
            NGHTTP2ClientHandler.handler(userData).lastInvalidFrame = text
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame, let userData, UInt32(frame.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue else { return 0 }
            let handler = NGHTTP2ClientHandler.handler(userData)
            let goAway = frame.pointee.goaway
            var reason = "sent GOAWAY (\(String(cString: nghttp2_http2_strerror(goAway.error_code))))"
            if goAway.opaque_data_len > 0, let opaque = goAway.opaque_data {
                reason += ": " + String(decoding: UnsafeBufferPointer(start: opaque, count: goAway.opaque_data_len), as: UTF8.self)
            }
            if let invalid = handler.lastInvalidFrame { reason += " after an \(invalid)" }
            handler.sessionError = reason
            return 0
        }
        var options: OpaquePointer?
        let optionsCreated = nghttp2_option_new(&options)
        guard optionsCreated == 0, let options else { throw SessionSetupFailed(call: "nghttp2_option_new", code: optionsCreated) }
        defer { nghttp2_option_del(options) }
        // As with NIOHTTP2's `headerBlockValidation = .disabled`: Herald's own requests are
        // checked where their values come from, and of an answer only `:status` is read.
        nghttp2_option_set_no_http_messaging(options, 1)
        var session: OpaquePointer?
        let sessionCreated = nghttp2_session_client_new2(&session, callbacks, userData, options)
        guard sessionCreated == 0, let session else { throw SessionSetupFailed(call: "nghttp2_session_client_new2", code: sessionCreated) }
        return session
    }

    static func frameTypeName(_ type: UInt8) -> String {
        switch UInt32(type) {
        case NGHTTP2_DATA.rawValue: "DATA"
        case NGHTTP2_HEADERS.rawValue: "HEADERS"
        case NGHTTP2_PRIORITY.rawValue: "PRIORITY"
        case NGHTTP2_RST_STREAM.rawValue: "RST_STREAM"
        case NGHTTP2_SETTINGS.rawValue: "SETTINGS"
        case NGHTTP2_PUSH_PROMISE.rawValue: "PUSH_PROMISE"
        case NGHTTP2_PING.rawValue: "PING"
        case NGHTTP2_GOAWAY.rawValue: "GOAWAY"
        case NGHTTP2_WINDOW_UPDATE.rawValue: "WINDOW_UPDATE"
        case NGHTTP2_CONTINUATION.rawValue: "CONTINUATION"
        default: "type \(type)"
        }
    }

    private static func handler(_ userData: UnsafeMutableRawPointer) -> NGHTTP2ClientHandler {
        Unmanaged<NGHTTP2ClientHandler>.fromOpaque(userData).takeUnretainedValue()
    }

    /// Copies the rest of a request's body into the session's DATA frame buffer.
    static var readBody: nghttp2_data_source_read_callback {
        { _, streamID, buffer, length, flags, _, userData in
            guard let userData, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            let handler = NGHTTP2ClientHandler.handler(userData)
            // Every stream keeps its body until it is sent or the stream closes.
            guard let outgoing = handler.outgoing[streamID] else {
                return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
            }
            let count = min(length, outgoing.body.count - outgoing.sent)
            outgoing.body.withUnsafeBytes { bytes in
                if count > 0 { UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + outgoing.sent, byteCount: count) }
            }
            if outgoing.sent + count == outgoing.body.count {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                // A DATA frame follows its stream's HEADERS: the header block is encoded already.
                handler.outgoing[streamID] = nil
            } else {
                handler.outgoing[streamID]?.sent += count
            }
            return count
        }
    }

    private func frameReceived(_ frame: nghttp2_frame) {
        let id = frame.hd.stream_id
        let endStream = frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        let ack = frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
        switch UInt32(frame.hd.type) {
        case NGHTTP2_HEADERS.rawValue:
            self.headerBlockEnded(id)
            if endStream { self.complete(id) }
        case NGHTTP2_DATA.rawValue:
            if endStream { self.complete(id) }
        case NGHTTP2_RST_STREAM.rawValue:
            self.finish(id, .reset(HTTP2ErrorCode(networkCode: Int(frame.rst_stream.error_code))))
        case NGHTTP2_SETTINGS.rawValue where !ack:
            // Each SETTINGS frame carries only what changed; no stream limit here keeps the old one.
            var limit: Int?
            for index in 0..<frame.settings.niv where frame.settings.iv[index].settings_id == Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) {
                limit = Int(frame.settings.iv[index].value)
            }
            self.settingsReceived(maxConcurrentStreams: limit)
        case NGHTTP2_PING.rawValue where ack:
            let data = withUnsafeBytes(of: frame.ping.opaque_data) { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
            self.pingAcknowledged(data)
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.goaway
            var debug: String?
            if goAway.opaque_data_len > 0, let opaque = goAway.opaque_data {
                debug = String(decoding: UnsafeBufferPointer(start: opaque, count: goAway.opaque_data_len), as: UTF8.self)
            }
            self.goAwayReceived(lastStreamID: goAway.last_stream_id, errorCode: goAway.error_code, debugData: debug)
        default:
            break
        }
    }

    private func headerBlockBegan(_ id: Int32) {
        self.receivedBlock.removeAll()
        self.receivedBlockStream = self.streams[id] == nil ? nil : id
    }

    private func headerReceived(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard self.receivedBlockStream == streamID else { return }
        // A field name with upper case or bytes past ASCII makes the answer malformed (RFC 9113
        // §8.2.1); libnghttp2's own checks are off.
        guard name.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) else {
            self.receivedBlockStream = nil
            self.reset(streamID, ending: .reset(.protocolError), code: NGHTTP2_PROTOCOL_ERROR)
            return
        }
        self.receivedBlock.add(name: name, value: value)
    }

    /// Informational (1xx) heads precede the real one; trailers follow it.
    private func headerBlockEnded(_ id: Int32) {
        defer {
            self.receivedBlock.removeAll()
            self.receivedBlockStream = nil
        }
        guard self.receivedBlockStream == id, let index = self.streams.index(forKey: id), self.streams.values[index].status == nil else { return }
        let status = self.receivedBlock.status ?? 0
        guard status >= 200 else { return }
        self.streams.values[index].status = status
        self.streams.values[index].headers = self.receivedBlock.compacted
    }

    private func dataReceived(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        guard let received = self.streams[streamID]?.body.count else { return }
        guard received + data.count <= HTTP2StreamsHandler.maximumBodySize else {
            self.reset(streamID, ending: .bodyTooLarge)
            return
        }
        self.streams[streamID]?.body.append(contentsOf: data)
    }

    /// Answered streams are gone already; this one ended without its answer. Streams a GOAWAY
    /// refused never reached the peer: they go to another connection at once, not after a
    /// reset's back-off.
    private func streamClosed(_ id: Int32, errorCode: UInt32) {
        self.outgoing[id] = nil
        guard self.streams[id] != nil else { return }
        let refused = self.goAwayLastStreamID.map { id > $0 } ?? false
        if refused || errorCode == NGHTTP2_NO_ERROR.rawValue {
            self.finish(id, .closed)
        } else {
            self.finish(id, .reset(HTTP2ErrorCode(networkCode: Int(errorCode))))
        }
    }
}
