import Foundation
import MediaAssets

/// What a `VideoUtil` knows of one resource while it runs.
struct ResourceState: Sendable {
    var info: VideoContentInfo
    /// Whether chunks are cached at all (the resource fits the storage budget).
    var isCacheable: Bool
    /// Chunks this util stored and has not seen go missing, to count evictions when they do.
    var storedChunks: Set<Int> = []
}

/// The mutable state of a `VideoUtil`, behind one `Mutex`; never held across I/O.
struct VideoState: Sendable {
    /// Bounds the resources remembered in memory; the meta records keep the rest.
    static let maximumResources = 1_024

    var resources: [CacheKey: ResourceState] = [:]
    /// Flights by id.
    var flights: [UInt64: RunFlight] = [:]
    /// The flight fetching each chunk, by resource and chunk index.
    var flightOfChunk: [CacheKey: [Int: UInt64]] = [:]
    var statistics = VideoStatistics()
    var nextID: UInt64 = 0

    mutating func _remember(_ key: CacheKey, _ resource: ResourceState) {
        if resources[key] == nil, resources.count >= Self.maximumResources { resources.removeAll() }
        resources[key] = resource
    }

    mutating func _makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// Plans the fetches of `missing` chunks (ascending) for reader `asker`: joins flights under way
    /// and registers a new flight for each contiguous run of the rest (returned in `started`; the
    /// caller starts them).
    mutating func _plan(
        key: CacheKey, url: URL, info: VideoContentInfo, missing: [Int], asker: UInt64
    ) -> (all: [RunFlight], started: [RunFlight]) {
        var all: [RunFlight] = []
        var started: [RunFlight] = []
        var runStart: Int?
        var runEnd = 0
        func closeRun() {
            guard let start = runStart else { return }
            let flight = RunFlight(
                id: _makeID(), key: key, url: url, info: info, chunks: start..<runEnd, askers: [asker]
            )
            flights[flight.id] = flight
            for index in flight.chunks { flightOfChunk[key, default: [:]][index] = flight.id }
            all.append(flight)
            started.append(flight)
            runStart = nil
        }
        for index in missing {
            if let id = flightOfChunk[key]?[index], flights[id] != nil {
                closeRun()
                if flights[id]?.askers.insert(asker).inserted == true, let flight = flights[id] {
                    statistics.fetchesJoined += 1
                    all.append(flight)
                }
                continue
            }
            if runStart != nil, index != runEnd { closeRun() }
            if runStart == nil { runStart = index }
            runEnd = index + 1
        }
        closeRun()
        return (all, started)
    }

    /// Records the task of a started flight; returns false when every asker already left.
    mutating func _attach(_ task: Task<Void, Never>, to id: UInt64) -> Bool {
        guard flights[id] != nil else { return false }
        flights[id]?.task = task
        return true
    }

    /// Reader `asker` waits on flight `id` with `continuation` (unless the result is in, or it left).
    mutating func _wait(
        _ id: UInt64, asker: UInt64, continuation: CheckedContinuation<[Data], Error>, isCancelled: Bool
    ) -> FlightWait {
        guard var flight = flights[id], flight.askers.contains(asker) else { return .left(nil) }
        if let result = flight.result {
            flight.askers.remove(asker)
            flights[id] = flight.askers.isEmpty ? nil : flight
            return .finished(result)
        }
        // Cancellation is flagged before the handler runs: a cancelled reader is never left waiting.
        if isCancelled { return .left(_leave(id, asker: asker).task) }
        flights[id]?.waiters[asker] = continuation
        return .suspended
    }

    /// Flight `id` finished: frees its chunks and returns the waiters to resume.
    mutating func _complete(_ id: UInt64, with result: Result<[Data], Error>) -> [CheckedContinuation<[Data], Error>] {
        guard var flight = flights[id] else { return [] }
        _unregisterChunks(of: flight)
        let waiters = flight.waiters
        for asker in waiters.keys { flight.askers.remove(asker) }
        flight.waiters = [:]
        flight.result = result
        flight.task = nil
        flights[id] = flight.askers.isEmpty ? nil : flight
        return Array(waiters.values)
    }

    /// Reader `asker` leaves flight `id`: returns its continuation to resume, and the task to cancel
    /// when it was the last asker of an unfinished flight.
    mutating func _leave(
        _ id: UInt64, asker: UInt64
    ) -> (waiter: CheckedContinuation<[Data], Error>?, task: Task<Void, Never>?) {
        guard var flight = flights[id], flight.askers.remove(asker) != nil else { return (nil, nil) }
        let waiter = flight.waiters.removeValue(forKey: asker)
        guard flight.askers.isEmpty else {
            flights[id] = flight
            return (waiter, nil)
        }
        flights[id] = nil
        _unregisterChunks(of: flight)
        return (waiter, flight.result == nil ? flight.task : nil)
    }

    private mutating func _unregisterChunks(of flight: RunFlight) {
        for index in flight.chunks where flightOfChunk[flight.key]?[index] == flight.id {
            flightOfChunk[flight.key]?[index] = nil
        }
        if flightOfChunk[flight.key]?.isEmpty == true { flightOfChunk[flight.key] = nil }
    }
}
