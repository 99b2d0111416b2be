import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Everything a ``SampleOrigin`` shares between threads; always accessed through its `Mutex`.
struct OriginState {
    /// The listening socket and the thread accepting on it, while running.
    struct Listener {
        var fd: Int32
        var port: Int
        var acceptThread: pthread_t?
    }

    /// Where a request's record lives, so its outcome can be filled in later.
    struct RecordTicket {
        var logEpoch: Int
        var path: String
        var index: Int
    }

    // Content and behaviour.
    var resources: [String: OriginResource] = [:]
    var behaviors: [String: SampleOrigin.Behavior] = [:]
    /// How many times each path's gate was released; a waiting request goes once this passes its ticket.
    var gateReleases: [String: Int] = [:]
    var etagSerial = 0
    /// Answers requests for unregistered paths (see `SampleOrigin.setHandler(_:)`).
    var handler: SampleOrigin.Handler?
    /// Connections served at once; more are answered 503.
    var maximumConnections = 256

    // Log and counters.
    var log: [String: [SampleOrigin.RequestRecord]] = [:]
    var logEpoch = 0
    var nextSequenceNumber = 0
    var inFlight = 0
    var inFlightByPath: [String: Int] = [:]
    var peakInFlight = 0
    var peakInFlightByPath: [String: Int] = [:]
    var rejectedRequestCount = 0

    // Lifecycle.
    var listener: Listener?
    var isStopping = false
    /// Open connections by id; stop() shuts each one down to wake its thread.
    var connections: [Int: Int32] = [:]
    var nextConnectionID = 0
    var acceptedConnectionCount = 0
    /// Connection threads started and not yet joined.
    var unjoinedThreads: Set<pthread_t> = []
    /// Connection threads that have ended and wait to be joined by the accept thread or stop().
    var finishedThreads: [pthread_t] = []

    /// Appends a record for a request that has just arrived and counts it in flight.
    mutating func _admit(_ record: SampleOrigin.RequestRecord) -> RecordTicket {
        let path = record.path
        log[path, default: []].append(record)
        inFlight += 1
        inFlightByPath[path, default: 0] += 1
        peakInFlight = max(peakInFlight, inFlight)
        peakInFlightByPath[path] = max(peakInFlightByPath[path] ?? 0, inFlightByPath[path] ?? 0)
        return RecordTicket(logEpoch: logEpoch, path: path, index: (log[path]?.count ?? 1) - 1)
    }

    /// Fills in the outcome of a request and takes it out of the in-flight counts.
    mutating func _finish(_ ticket: RecordTicket, update: (inout SampleOrigin.RequestRecord) -> Void) {
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

    /// A fresh strong ETag; the per-instance prefix keeps tags of two origins apart.
    mutating func _nextETag(instanceTag: String, length: Int) -> String {
        etagSerial += 1
        return "\"\(instanceTag)-\(etagSerial)-\(String(length, radix: 16))\""
    }
}
