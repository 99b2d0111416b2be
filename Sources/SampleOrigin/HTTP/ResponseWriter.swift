import Foundation

/// Writes a ``ResponsePlan`` to a socket, applying the body faults of a ``SampleOrigin/Behavior``.
struct ResponseWriter {
    /// What happened on the wire.
    struct Outcome {
        var bodyBytesSent = 0
        var bodyCompleted = false
        var clientClosedEarly = false
        /// Whether another request may follow on this connection.
        var connectionReusable = false
    }

    /// Bodies up to this size go out in the same write as the head.
    private static let coalescedBodyLimit = 64 * 1024
    /// Large bodies go out in slices of this size straight from the `Data`'s buffer.
    private static let sliceSize = 1 << 20
    /// How often a stalled body checks whether the client has hung up.
    private static let stallCheckInterval = Duration.milliseconds(5)

    let fd: Int32
    /// Waits for a duration; returns `false` when the origin is stopping.
    let pause: (Duration) -> Bool
    /// The link shared by every connection, when the origin limits bandwidth.
    var bandwidth: BandwidthLimit?

    /// Sends `plan`; `sendsBody` is `false` for HEAD.
    func write(_ plan: ResponsePlan, sendsBody: Bool, behavior: SampleOrigin.Behavior, keepAlive: Bool) -> Outcome {
        let bodyLength = plan.bodyRange.count
        var declaredLength = bodyLength
        var sendLimit = bodyLength
        var closesAfter = !keepAlive
        var throttle: SampleOrigin.Behavior.Throttle?
        var stallAt: Int?
        if plan.carriesResourceBody {
            if behavior.contentLengthOffset != 0 {
                let (sum, overflow) = bodyLength.addingReportingOverflow(behavior.contentLengthOffset)
                declaredLength = overflow ? Int.max : max(0, sum)
                closesAfter = true
            }
            if let cutOff = behavior.closeAfterBodyBytes, cutOff < bodyLength {
                sendLimit = max(0, cutOff)
                closesAfter = true
            }
            if let stall = behavior.stallAfterBodyBytes, stall < sendLimit { stallAt = max(0, stall) }
            throttle = behavior.throttle
        }
        var head = "HTTP/1.1 \(plan.status) \(ResponsePlan.reasonPhrase(for: plan.status))\r\n"
        for (name, value) in plan.headers { head += "\(name): \(value)\r\n" }
        if plan.declaresLength { head += "Content-Length: \(declaredLength)\r\n" }
        head += closesAfter ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n"
        let headBytes = Array(head.utf8)

        var outcome = Outcome()
        guard sendsBody, sendLimit > 0 else {
            let sent = headBytes.withUnsafeBytes { Socket.sendAll(fd, $0) }
            outcome.clientClosedEarly = sent == .peerClosed
            outcome.bodyCompleted = sent == .sent && (!sendsBody || bodyLength == 0)
            outcome.connectionReusable = sent == .sent && !closesAfter
            return outcome
        }
        plan.body.withUnsafeBytes { whole in
            let start = plan.bodyRange.lowerBound
            let body = UnsafeRawBufferPointer(rebasing: whole[start..<(start + sendLimit)])
            let paced = bandwidth?.isLimited == true
            if throttle == nil, stallAt == nil, !paced, body.count <= Self.coalescedBodyLimit {
                let sent = (headBytes + body).withUnsafeBytes { Socket.sendAll(fd, $0) }
                outcome.clientClosedEarly = sent == .peerClosed
                outcome.bodyBytesSent = sent == .sent ? body.count : 0
                return
            }
            guard headBytes.withUnsafeBytes({ Socket.sendAll(fd, $0) }) == .sent else {
                outcome.clientClosedEarly = true
                return
            }
            outcome = sendBody(body, throttle: throttle, stallAt: stallAt, paced: paced)
        }
        outcome.bodyCompleted = outcome.bodyBytesSent == bodyLength
        outcome.connectionReusable = outcome.bodyCompleted && !closesAfter
        return outcome
    }

    /// Sends the body in slices (or throttle pieces), watching for the client hanging up between pieces;
    /// with `stallAt`, sends that many bytes and then only waits for the client to hang up.
    private func sendBody(
        _ body: UnsafeRawBufferPointer, throttle: SampleOrigin.Behavior.Throttle?, stallAt: Int?, paced: Bool
    ) -> Outcome {
        var outcome = Outcome()
        var pieceSize = throttle.map { max(1, $0.pieceSize) } ?? Self.sliceSize
        if paced { pieceSize = min(pieceSize, BandwidthLimit.pieceSize) }
        // What goes out before the body ends or stalls (`stallAt` is below the body's length).
        let sendable = stallAt ?? body.count
        var offset = 0
        while offset < body.count {
            if offset == stallAt {
                // Checked every few milliseconds; stop() ends the wait at once.
                while pause(Self.stallCheckInterval) {
                    if Socket.peerHasClosed(fd) {
                        outcome.clientClosedEarly = true
                        return outcome
                    }
                }
                return outcome
            }
            if let throttle, offset > 0 {
                guard pause(throttle.delay) else { return outcome }
                // A cancelled client is noticed here, not only when a later write fails.
                if Socket.peerHasClosed(fd) {
                    outcome.clientClosedEarly = true
                    return outcome
                }
            }
            let end = min(offset + pieceSize, sendable)
            if paced, let bandwidth {
                while case let wait = bandwidth.take(end - offset), wait > .zero {
                    guard pause(wait) else { return outcome }
                    if Socket.peerHasClosed(fd) {
                        outcome.clientClosedEarly = true
                        return outcome
                    }
                }
            }
            guard Socket.sendAll(fd, UnsafeRawBufferPointer(rebasing: body[offset..<end])) == .sent else {
                outcome.clientClosedEarly = true
                return outcome
            }
            outcome.bodyBytesSent = end
            offset = end
        }
        return outcome
    }
}
