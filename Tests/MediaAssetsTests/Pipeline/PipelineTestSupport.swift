import Foundation
import MediaAssets
import Synchronization
import TestSupport

/// The smallest decoder: UTF-8 text, which rejects bytes that are not UTF-8.
struct TextDecoder: AssetDecoding {
    struct NotText: Error {}

    var identifier: String { "text" }

    func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> String {
        guard let text = String(data: data, encoding: .utf8) else { throw NotText() }
        return text
    }

    func cost(of text: String) -> Int { text.utf8.count }
}

extension OriginEnvironment {
    /// Serves the text "hello" at `/feed.txt` with `cacheControl`, and returns a text pipeline on this manager and
    /// a request for the feed: the cached feed whose freshness a test plays with.
    func textFeed(cacheControl: String) -> (pipeline: AssetPipeline<TextDecoder>, request: AssetRequest) {
        let url = serve("/feed.txt", Data("hello".utf8), cacheControl: cacheControl)
        return (AssetPipeline(manager: manager, decoder: TextDecoder()), AssetRequest(url: url))
    }
}

/// Upper-cases text: a processor whose output differs from its input.
struct Uppercased: AssetProcessing {
    var identifier: String { "uppercased" }
    func process(_ text: String) throws -> String { text.uppercased() }
}

/// A byte backend whose armed reads look up their answer, then wait at a gate before returning it:
/// the moment between a cache miss and what the asker does next, held open.
final class GatedReadBackend: CacheBackend {
    private struct State {
        var armedRead: Int?
        var reads = 0
        var held = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var open = false
    }

    let inner: any CacheBackend
    private let state = Mutex(State())

    init(inner: any CacheBackend) { self.inner = inner }

    /// Holds the `number`th read from now (1 is the next).
    func arm(read number: Int) { state.withLock { $0.armedRead = $0.reads + number } }

    /// Reads held at the gate now.
    var heldCount: Int { state.withLock { $0.held } }

    /// Lets held reads return.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        let result = try await inner.entry(forKey: key)
        let holds = state.withLock { state -> Bool in
            state.reads += 1
            return state.reads == state.armedRead && !state.open
        }
        if holds {
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.held += 1
                    state.waiters.append(continuation)
                    return false
                }
                if resume { continuation.resume() }
            }
        }
        return result
    }

    func store(_ entry: CacheEntry, forKey key: CacheKey) async throws { try await inner.store(entry, forKey: key) }
    func removeEntry(forKey key: CacheKey) async throws { try await inner.removeEntry(forKey: key) }
    func removeAll() async throws { try await inner.removeAll() }
    func statistics() async -> CacheStatistics { await inner.statistics() }
}
