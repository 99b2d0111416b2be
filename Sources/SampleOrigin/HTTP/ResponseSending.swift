import Foundation
import MediaAssetsHTTPServer

/// Sends a ``ResponsePlan`` through the server's writer, applying the body faults of a ``SampleOrigin/Behavior``.
struct ResponseSending {
    /// What happened on the wire.
    struct Outcome {
        var bodyBytesSent = 0
        var bodyCompleted = false
        var clientClosedEarly = false
    }

    /// Large bodies go out in slices of this size straight from the `Data`'s buffer.
    static let sliceSize = 1 << 20

    let plan: ResponsePlan
    let behavior: SampleOrigin.Behavior
    let writer: HTTPResponseWriter
    /// The link shared by every connection, when the origin limits bandwidth.
    var bandwidth: BandwidthLimit?

    /// Sends the head and, unless `includingBody` is false (HEAD), the body.
    func send(includingBody: Bool) async -> Outcome {
        let bodyLength = plan.bodyRange.count
        var declaredLength = bodyLength
        var sendLimit = bodyLength
        var closesAfter = false
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
        var headers = plan.headers
        if plan.declaresLength { headers.append(("Content-Length", "\(declaredLength)")) }
        var failed = false
        do {
            try await writer.writeHead(status: plan.status, headers: headers, closingConnection: closesAfter)
            if includingBody {
                let start = plan.bodyRange.lowerBound
                let body = plan.body[(plan.body.startIndex + start)..<(plan.body.startIndex + start + sendLimit)]
                try await sendBody(body, throttle: throttle, stallAt: stallAt)
            }
        } catch {
            failed = true
        }
        let written = await writer.finish(closingConnection: closesAfter)
        var outcome = Outcome()
        outcome.bodyBytesSent = written.bodyBytesSent
        outcome.clientClosedEarly = written.clientClosedEarly || (failed && !writer.isClientConnected)
        outcome.bodyCompleted = includingBody ? written.bodyBytesSent == bodyLength : !failed
        return outcome
    }

    /// Sends the body in slices (or throttle pieces, or pieces paced by the shared bandwidth limit), watching for
    /// the client hanging up between pieces; with `stallAt`, sends that many bytes and then only waits for the
    /// client to hang up.
    private func sendBody(_ body: Data, throttle: SampleOrigin.Behavior.Throttle?, stallAt: Int?) async throws {
        let paced = bandwidth?.isLimited == true
        var pieceSize = throttle.map { max(1, $0.pieceSize) } ?? Self.sliceSize
        if paced { pieceSize = min(pieceSize, BandwidthLimit.pieceSize) }
        // What goes out before the body ends or stalls (`stallAt` is below the body's length).
        let sendable = stallAt ?? body.count
        var offset = 0
        while offset < sendable {
            if let throttle, offset > 0 {
                try await Task.sleep(for: throttle.delay)
                // A cancelled client is noticed here, not only when a later write fails.
                guard writer.isClientConnected else { throw CancellationError() }
            }
            let end = min(offset + pieceSize, sendable)
            if paced, let bandwidth {
                // The link is taken only when the piece goes: a client that hung up holds no link time.
                while case let wait = bandwidth.take(end - offset), wait > .zero {
                    try await Task.sleep(for: wait)
                    guard writer.isClientConnected else { throw CancellationError() }
                }
            }
            try await writer.write(body[(body.startIndex + offset)..<(body.startIndex + end)])
            offset = end
        }
        if stallAt != nil { await writer.waitUntilClientCloses() }
    }
}
