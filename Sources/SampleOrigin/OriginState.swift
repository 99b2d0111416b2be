import Foundation

/// Everything a ``SampleOrigin`` shares between its requests' tasks; always accessed through its `Mutex`.
struct OriginState {
    /// Where a request's record lives, so its outcome can be filled in later.
    struct RecordTicket: Hashable {
        var logEpoch: Int
        var path: String
        var index: Int
        /// The request's sequence number: identifies it among the requests in flight.
        var sequenceNumber: Int
    }

    /// A request waiting at a gate: it goes once the path's release count passes `ticket`.
    struct GateWaiter {
        var ticket: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    // Content and behaviour.
    var resources: [String: OriginResource] = [:]
    var behaviors: [String: SampleOrigin.Behavior] = [:]
    /// How many times each path's gate was released; a waiting request goes once this passes its ticket.
    var gateReleases: [String: Int] = [:]
    /// Requests waiting at gates, by path and sequence number.
    var gateWaiters: [String: [Int: GateWaiter]] = [:]
    var etagSerial = 0
    /// Answers requests for unregistered paths (see `SampleOrigin.setHandler(_:)`).
    var handler: SampleOrigin.Handler?

    // Log and counters.
    var log: [String: [SampleOrigin.RequestRecord]] = [:]
    var logEpoch = 0
    var nextSequenceNumber = 0
    /// Requests admitted and not finished yet, by sequence number.
    var active: [Int: RecordTicket] = [:]
    var inFlight = 0
    var inFlightByPath: [String: Int] = [:]
    var peakInFlight = 0
    var peakInFlightByPath: [String: Int] = [:]
    /// The server's rejected-request count at the last `resetLog()`.
    var rejectedBaseline = 0
    /// Set while `stop()` runs: writes failing then are not the client hanging up.
    var isStopping = false

    /// Appends a record for a request that has just arrived and counts it in flight.
    mutating func _admit(_ record: SampleOrigin.RequestRecord) -> RecordTicket {
        let path = record.path
        log[path, default: []].append(record)
        inFlight += 1
        inFlightByPath[path, default: 0] += 1
        peakInFlight = max(peakInFlight, inFlight)
        peakInFlightByPath[path] = max(peakInFlightByPath[path] ?? 0, inFlightByPath[path] ?? 0)
        let ticket = RecordTicket(
            logEpoch: logEpoch, path: path, index: (log[path]?.count ?? 1) - 1, sequenceNumber: record.sequenceNumber)
        active[record.sequenceNumber] = ticket
        return ticket
    }

    /// Fills in the outcome of a request and takes it out of the in-flight counts, once: a request
    /// `stop()` already ended keeps what it recorded.
    mutating func _finish(_ ticket: RecordTicket, update: (inout SampleOrigin.RequestRecord) -> Void) {
        guard active.removeValue(forKey: ticket.sequenceNumber) != nil else { return }
        inFlight = max(0, inFlight - 1)
        inFlightByPath[ticket.path] = max(0, (inFlightByPath[ticket.path] ?? 0) - 1)
        // A record written before resetLog() is gone; its outcome is dropped with it.
        _updateRecord(ticket, update: update)
    }

    /// Updates a request's record if it is still in the log; does not touch the in-flight counts.
    mutating func _updateRecord(_ ticket: RecordTicket, update: (inout SampleOrigin.RequestRecord) -> Void) {
        guard ticket.logEpoch == logEpoch, log[ticket.path]?.indices.contains(ticket.index) == true else { return }
        update(&log[ticket.path, default: []][ticket.index])
    }

    /// Takes the gate waiters of `path` that may go now (all of them when `everyone`).
    mutating func _openGate(_ path: String, everyone: Bool) -> [CheckedContinuation<Bool, Never>] {
        let releases = gateReleases[path, default: 0]
        let gated = behaviors[path]?.gated ?? false
        var opened: [CheckedContinuation<Bool, Never>] = []
        for (id, waiter) in gateWaiters[path] ?? [:] where everyone || !gated || releases > waiter.ticket {
            opened.append(waiter.continuation)
            gateWaiters[path]?[id] = nil
        }
        return opened
    }

    /// A fresh strong ETag; the per-instance prefix keeps tags of two origins apart.
    mutating func _nextETag(instanceTag: String, length: Int) -> String {
        etagSerial += 1
        return "\"\(instanceTag)-\(etagSerial)-\(String(length, radix: 16))\""
    }
}

/// A registered resource: its bytes and the validators the origin answers with.
struct OriginResource: Sendable {
    var data: Data
    var contentType: String
    var cacheControl: String?
    /// Whole seconds, as HTTP dates carry no fraction.
    var lastModified: Date
    /// A strong ETag; a new one is made whenever the bytes are replaced.
    var etag: String
}
