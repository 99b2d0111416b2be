import Foundation
import MediaAssets
import MediaAssetsImage
import Synchronization

/// Preloads the items of a feed around the one playing: the nearest first, each up to a few seconds, all of
/// them together within a byte budget, through the same chunk cache the player reads.
///
/// Give it the feed (`setItems(_:)`) and move it as the user swipes (`setCurrentIndex(_:)`). Items from
/// `itemsBehind` before the current one to `itemsAhead` after it are ranked by distance (ahead first on a tie)
/// and preloaded `concurrency` at a time: an item's preload runs FFmpeg's demuxer over the chunk cache until it
/// has read `seconds` of video (so a file with its `moov` at the end preloads its index and its first
/// seconds), or reads a byte count. The player's reads never wait for the preloader: a read of bytes a preload
/// is fetching joins that fetch (one download, shared), and a read of bytes it fetched is a cache hit.
///
/// The budget bounds the bytes preloaded and not yet played: each item in the window may take an equal share
/// of it, an item that becomes current is played (its bytes leave the budget), and an item that leaves the
/// window is cancelled (what it fetched stays in the cache under its LRU rules and leaves the budget). A new
/// current index re-plans at once; chunks already cached are never fetched again. An HLS item (given an
/// `HLSUtil`) preloads the segments of its first seconds; a segment's size is known only once it is fetched
/// (unless the playlist gives byte ranges), so such an item may pass its share by up to one segment, and its
/// poster, from the segment that holds the time, is read outside the share when that segment was not preloaded.
///
/// ```swift
/// let preloader = VideoPreloader(video: video)
/// preloader.setItems(feed.map { AssetRequest(url: $0) })
/// Task { for await update in preloader.updates() { feedView.show(update.state, at: update.index) } }
/// preloader.setCurrentIndex(0)  // and again on every swipe
/// ```
public final class VideoPreloader: Sendable {
    /// How far and how much a `VideoPreloader` preloads.
    public struct Configuration: Sendable {
        /// How many items after the current one are preloaded.
        public var itemsAhead: Int
        /// How many items before the current one are preloaded (a user swiping back).
        public var itemsBehind: Int
        /// How much of each item is preloaded.
        public var amount: Amount
        /// The most bytes preloaded and not yet played, over every item (whole chunks are counted).
        public var byteBudget: Int
        /// How many items are preloaded at once.
        public var concurrency: Int
        /// When set, a still of each item in the window is taken at this position once its preload is done
        /// (`VideoUtil.frame(for:at:style:options:)` in `posterStyle`), for the feed to show before it plays.
        public var posterPosition: VideoFramePosition?
        /// The style of those stills.
        public var posterStyle: any ImageProcessing

        /// Creates a configuration: 3 items ahead and 1 behind, 3 seconds of each, 24 MiB in all, 2 at a time,
        /// no posters.
        public init(
            itemsAhead: Int = 3, itemsBehind: Int = 1, amount: Amount = .seconds(3), byteBudget: Int = 24 << 20,
            concurrency: Int = 2, posterPosition: VideoFramePosition? = nil,
            posterStyle: any ImageProcessing = AvatarStyle.original
        ) {
            self.itemsAhead = max(0, itemsAhead)
            self.itemsBehind = max(0, itemsBehind)
            self.amount = amount
            self.byteBudget = max(0, byteBudget)
            self.concurrency = max(1, concurrency)
            self.posterPosition = posterPosition
            self.posterStyle = posterStyle
        }
    }

    /// How much of an item is preloaded.
    public enum Amount: Hashable, Sendable {
        /// What a player reads to play this many seconds from the start, found by FFmpeg's demuxer; without
        /// FFmpeg's libraries, `fallbackBytes`.
        case seconds(Double, fallbackBytes: Int = 2 << 20)
        /// The first bytes (whole chunks).
        case bytes(Int)
    }

    /// Where an item's preload stands.
    public enum State: Hashable, Sendable {
        /// In the window, waiting for a slot or for budget.
        case queued
        /// Being read: `bytes` so far.
        case loading(bytes: Int)
        /// Done: `bytes` are cached (and its poster, when one was asked).
        case ready(bytes: Int)
        /// The item could not be preloaded; the player will see the same error.
        case failed(String)
        /// The item left the window (or became current) before its preload ended; what it read stays cached.
        case cancelled
    }

    /// A change of one item's state.
    public struct Update: Sendable {
        /// The item's index in the feed.
        public let index: Int
        /// The item.
        public let request: AssetRequest
        /// Its new state.
        public let state: State
    }

    /// The util preloads read through.
    package let video: VideoUtil
    /// The util HLS items (`.m3u8` URLs) are preloaded through, when given.
    package let hls: HLSUtil?
    /// The configuration the preloader was created with.
    public let configuration: Configuration

    /// Creates a preloader reading progressive files through `video`'s chunk cache, and HLS streams (`.m3u8` URLs)
    /// through `hls` when given (without it, a playlist is read as a file).
    public init(video: VideoUtil, hls: HLSUtil? = nil, configuration: Configuration = .init()) {
        self.video = video
        self.hls = hls
        self.configuration = configuration
    }

    /// Replaces the feed; every preload under way is cancelled and the window is planned again around the
    /// current index (clamped to the new feed).
    public func setItems(_ items: [AssetRequest]) {
        let updates = state.withLock { state -> [Update] in
            var updates = state._cancelAll(except: nil)
            state.items = items
            state.current = min(state.current, max(0, items.count - 1))
            updates += _plan(&state)
            return updates
        }
        publish(updates)
    }

    /// Moves the window to the item now playing: items that left it are cancelled, the current item's
    /// bytes count as played, and the nearest items not yet preloaded start. May be called before
    /// `setItems(_:)` to start a feed in the middle.
    public func setCurrentIndex(_ index: Int) {
        let updates = state.withLock { state -> [Update] in
            state.current = state.items.isEmpty ? max(0, index) : max(0, min(index, state.items.count - 1))
            return _plan(&state)
        }
        publish(updates)
    }

    /// The state of the item at `index`, or `nil` for one the preloader has not planned.
    public func state(at index: Int) -> State? {
        state.withLock { $0.entries[index]?.state }
    }

    /// The bytes preloaded and not yet played, as the budget counts them (never above `byteBudget`).
    public var heldBytes: Int { state.withLock { $0.held } }

    /// Every state change from now on, until `stop()` (each call makes a new sequence).
    public func updates() -> AsyncStream<Update> {
        let (stream, continuation) = AsyncStream.makeStream(of: Update.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state -> UInt64? in
            guard !state.isStopped else { return nil }
            state.nextSubscriberID += 1
            state.subscribers[state.nextSubscriberID] = continuation
            return state.nextSubscriberID
        }
        if let id {
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        } else {
            continuation.finish()
        }
        return stream
    }

    /// Cancels every preload and ends the update sequences.
    public func stop() {
        let (updates, subscribers) = state.withLock { state -> ([Update], [AsyncStream<Update>.Continuation]) in
            let updates = state._cancelAll(except: nil)
            state.isStopped = true
            state.items = []
            let subscribers = Array(state.subscribers.values)
            state.subscribers = [:]
            return (updates, subscribers)
        }
        for subscriber in subscribers {
            for update in updates { subscriber.yield(update) }
            subscriber.finish()
        }
    }

    deinit {
        for entry in state.withLock({ $0.entries.values }) { entry.task?.cancel() }
    }

    // MARK: Internals

    struct Entry {
        var state: State = .queued
        var task: Task<Void, Never>?
        /// The bytes of the budget this item may take (its share while it loads, what it read once done).
        var reserved = 0
        /// The item is, or was, current: its bytes are played and leave the budget.
        var isPlayed = false
        /// Which preload the entry waits for: a preload cancelled as its item left the window may end after
        /// the item came back with a new one.
        var token: UInt64 = 0
    }

    struct PlanState {
        var items: [AssetRequest] = []
        var current = 0
        var entries: [Int: Entry] = [:]
        var running = 0
        var nextToken: UInt64 = 0
        var isStopped = false
        var subscribers: [UInt64: AsyncStream<Update>.Continuation] = [:]
        var nextSubscriberID: UInt64 = 0

        /// The bytes the budget holds: what items in the window, not played, reserved.
        var held: Int { entries.values.filter { !$0.isPlayed }.map(\.reserved).reduce(0, +) }

        /// Cancels and forgets every entry but `kept`, returning their updates.
        mutating func _cancelAll(except kept: Set<Int>?) -> [Update] {
            var updates: [Update] = []
            for (index, entry) in entries where !(kept?.contains(index) ?? false) {
                entry.task?.cancel()
                if entry.task != nil { running -= 1 }
                entries[index] = nil
                if case .ready = entry.state { continue }
                if case .failed = entry.state { continue }
                if index < items.count {
                    updates.append(Update(index: index, request: items[index], state: .cancelled))
                }
            }
            return updates
        }
    }

    let state = Mutex(PlanState())

    /// The window's indices, nearest first (ahead before behind at equal distance), the current one excluded.
    static func window(current: Int, count: Int, ahead: Int, behind: Int) -> [Int] {
        var ranked: [Int] = []
        for distance in 1...max(1, max(ahead, behind)) {
            if distance <= ahead, current + distance < count { ranked.append(current + distance) }
            if distance <= behind, current - distance >= 0 { ranked.append(current - distance) }
        }
        return ranked
    }

    /// Re-plans around `state.current`: cancels what left the window, marks the current item played, and
    /// starts the nearest queued items while slots and budget allow.
    private func _plan(_ state: inout PlanState) -> [Update] {
        guard !state.isStopped, !state.items.isEmpty else { return [] }
        let ranked = Self.window(
            current: state.current, count: state.items.count, ahead: configuration.itemsAhead,
            behind: configuration.itemsBehind)
        var updates = state._cancelAll(except: Set(ranked).union([state.current]))
        // The current item is the player's: its preload (if any) goes on for the player, outside the budget.
        if state.entries[state.current] != nil { state.entries[state.current]?.isPlayed = true }
        let share = configuration.byteBudget / max(1, configuration.itemsAhead + configuration.itemsBehind)
        for index in ranked {
            if state.entries[index] == nil {
                state.entries[index] = Entry()
                updates.append(Update(index: index, request: state.items[index], state: .queued))
            }
        }
        for index in ranked where state.running < configuration.concurrency {
            guard let entry = state.entries[index], entry.state == .queued, entry.task == nil else { continue }
            let available = configuration.byteBudget - state.held
            let reservation = min(share, available)
            guard reservation >= video.configuration.chunkSize else { break }
            state.nextToken += 1
            let token = state.nextToken
            state.entries[index]?.token = token
            state.entries[index]?.reserved = reservation
            state.entries[index]?.state = .loading(bytes: 0)
            state.running += 1
            updates.append(Update(index: index, request: state.items[index], state: .loading(bytes: 0)))
            let request = state.items[index]
            state.entries[index]?.task = Task { [weak self] in
                await self?.preload(request, index: index, token: token, byteLimit: reservation)
            }
        }
        return updates
    }

    /// Preloads one item, then its poster, and records the outcome.
    private func preload(_ request: AssetRequest, index: Int, token: UInt64, byteLimit: Int) async {
        let outcome: State
        do {
            let progress: @Sendable (Int) -> Void = { [weak self] bytes in
                self?.report(.loading(bytes: bytes), index: index, token: token)
            }
            if let hls, request.url.pathExtension.lowercased() == "m3u8" {
                outcome = .ready(bytes: try await preloadStream(request, hls: hls, byteLimit: byteLimit, progress))
            } else {
                outcome = .ready(bytes: try await preloadFile(request, byteLimit: byteLimit, progress))
            }
        } catch is CancellationError {
            outcome = .cancelled
        } catch {
            outcome = .failed("\(error)")
        }
        let updates = state.withLock { state -> [Update] in
            guard state.entries[index]?.token == token else { return [] }
            state.running -= 1
            state.entries[index]?.task = nil
            state.entries[index]?.state = outcome
            switch outcome {
            case .ready(let bytes): state.entries[index]?.reserved = bytes
            default: state.entries[index]?.reserved = 0
            }
            return [Update(index: index, request: request, state: outcome)] + _plan(&state)
        }
        publish(updates)
    }

    /// A progressive file: its first seconds through the demuxer (or bytes), then its poster, within `byteLimit`
    /// distinct chunks.
    private func preloadFile(
        _ request: AssetRequest, byteLimit: Int, _ progress: @escaping @Sendable (Int) -> Void
    ) async throws -> Int {
        let seconds: Double?
        let limit: Int
        switch configuration.amount {
        case .seconds(let value, let fallback):
            seconds = value
            limit = video.frameLibrary == nil ? min(byteLimit, fallback) : byteLimit
        case .bytes(let count):
            seconds = nil
            limit = min(byteLimit, count)
        }
        let tally = VideoUtil.BlockTally()
        let bytes = try await video.preload(
            request, seconds: seconds, byteLimit: limit, tally: tally, progress: progress)
        if let position = configuration.posterPosition, !Task.isCancelled {
            // The poster reads the index and the frame's group again (cached) and may need new blocks: its
            // reads stay within what is left of the item's share.
            do {
                _ = try await video.frame(
                    for: request, at: position, style: configuration.posterStyle,
                    options: VideoFrameOptions(maxBytesRead: max(0, byteLimit - bytes)), bytesRead: tally)
            } catch VideoError.frameLimitExceeded {
                // No room left in the share: the item is preloaded, its poster is taken when shown.
            }
        }
        return tally.value
    }

    /// An HLS stream: the segments of its first seconds (a byte count reads segments until it is reached), then
    /// its poster from the segment that holds the time.
    private func preloadStream(
        _ request: AssetRequest, hls: HLSUtil, byteLimit: Int, _ progress: @escaping @Sendable (Int) -> Void
    ) async throws -> Int {
        let seconds: Double
        let limit: Int
        switch configuration.amount {
        case .seconds(let value, _):
            (seconds, limit) = (value, byteLimit)
        case .bytes(let count):
            (seconds, limit) = (.infinity, min(byteLimit, count))
        }
        let bytes = try await hls.preload(request, seconds: seconds, byteLimit: limit, progress: progress)
        if let position = configuration.posterPosition, !Task.isCancelled {
            _ = try? await hls.frame(for: request, at: position, style: configuration.posterStyle)
        }
        return bytes
    }

    private func report(_ progress: State, index: Int, token: UInt64) {
        let update = state.withLock { state -> Update? in
            guard let entry = state.entries[index], entry.token == token, entry.task != nil, index < state.items.count
            else { return nil }
            state.entries[index]?.state = progress
            return Update(index: index, request: state.items[index], state: progress)
        }
        if let update { publish([update]) }
    }

    private func publish(_ updates: [Update]) {
        guard !updates.isEmpty else { return }
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            for update in updates { subscriber.yield(update) }
        }
    }
}
