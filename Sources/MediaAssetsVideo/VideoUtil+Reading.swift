import Foundation
import MediaAssets

extension VideoUtil {
    /// Where the bytes of one chunk of a window come from.
    private enum ChunkSource {
        case cached(Data)
        case fetch(RangeFetch)
    }

    /// Delivers the bytes `bytes` of the resource in order, piece by piece, to `deliver`.
    ///
    /// Works through the range a window of `windowChunks` chunks at a time (`windowChunkCount` unless
    /// given), calling `beforeWindow` first (a stream waits there for its consumer). In a window, cached
    /// chunks are read in one go and go out at once; each missing run is fetched with one Range request (or
    /// joined, when another reader is fetching it), and its bytes go out as they arrive. A window ends once
    /// its chunks are stored, which bounds what waits for the disk. An uncached resource is fetched exactly,
    /// a window per request.
    func read(
        asset: AssetRequest, key: CacheKey, resource: ResourceState, bytes: Range<Int>, windowChunks: Int? = nil,
        beforeWindow: () async throws -> Void = {}, deliver: (Data) async throws -> Void
    ) async throws {
        let windowChunks = windowChunks ?? windowChunkCount
        guard resource.isCacheable else {
            let windowBytes = windowChunks * configuration.chunkSize
            var start = bytes.lowerBound
            while start < bytes.upperBound {
                try await beforeWindow()
                let end = min(bytes.upperBound, (start / windowBytes + 1) * windowBytes)
                let fetch = startFetch(asset, key: key, resource: resource, bytes: start..<end)
                _ = fetch.join()
                defer { fetch.leave() }
                try await deliverFromFetch(fetch, bytes: start..<end, chunk: nil, deliver: deliver)
                start = end
            }
            return
        }
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: resource.info.length)
        let chunks = layout.chunks(covering: bytes)
        var start = chunks.lowerBound
        while start < chunks.upperBound {
            try Task.checkCancellation()
            try await beforeWindow()
            let window = start..<min(chunks.upperBound, start + windowChunks)
            try await readWindow(
                window, asset: asset, key: key, resource: resource, layout: layout, bytes: bytes,
                deliver: deliver)
            start = window.upperBound
        }
    }

    private func readWindow(
        _ window: Range<Int>, asset: AssetRequest, key: CacheKey, resource: ResourceState, layout: ChunkLayout,
        bytes: Range<Int>, deliver: (Data) async throws -> Void
    ) async throws {
        let info = resource.info
        var sources: [Int: ChunkSource] = [:]
        var held: [RangeFetch] = []
        defer { for fetch in held { fetch.leave() } }
        // Fetches under way first: a chunk they carry is not in the cache yet, and stays theirs until stored.
        let unclaimed = state.withLock { state in
            Self._join(window, key: key, info: info, state: &state, sources: &sources, held: &held)
        }
        // The rest from the cache, in one read.
        var cachedBytes = 0
        for (index, data) in await cachedChunks(unclaimed, key: key, info: info, layout: layout) {
            sources[index] = .cached(data)
            cachedBytes += layout.byteRange(ofChunk: index).clamped(to: bytes).count
        }
        state.withLock { $0.statistics.bytesServedFromCache += cachedBytes }
        // One fetch per run of what neither had. Joining a fetch under way and registering a new one happen
        // in one lock section, so two readers of a chunk never both fetch it; a chunk stored since the cache
        // was read is read again rather than fetched.
        var missing = unclaimed.filter { sources[$0] == nil }
        for attempt in 0..<3 where !missing.isEmpty {
            if let meet = beforeClaimingChunks.withLock({ $0 }) { await meet() }
            let isLast = attempt == 2
            typealias Claim = (stored: [Int], started: [(RangeFetch, Range<Int>)])
            let (storedMeanwhile, started) = state.withLock { state -> Claim in
                let open = Self._join(missing, key: key, info: info, state: &state, sources: &sources, held: &held)
                var stored: [Int] = []
                if !isLast, let current = state.resources[key], current.info == info {
                    stored = open.filter(current.storedChunks.contains)
                }
                var started: [(RangeFetch, Range<Int>)] = []
                for part in Range<Int>.runs(of: open.filter { !stored.contains($0) }) {
                    let partBytes = layout.byteRange(ofChunks: part)
                    let fetch = makeFetch(key: key, info: info, layout: layout, bytes: partBytes, stores: true)
                    state._register(fetch, chunks: part)
                    _ = fetch.join()
                    held.append(fetch)
                    started.append((fetch, partBytes))
                    for index in part { sources[index] = .fetch(fetch) }
                }
                return (stored, started)
            }
            for (fetch, fetchBytes) in started { startTransfer(fetch, asset: asset, bytes: fetchBytes) }
            var found = 0
            for (index, data) in await cachedChunks(storedMeanwhile, key: key, info: info, layout: layout) {
                sources[index] = .cached(data)
                found += layout.byteRange(ofChunk: index).clamped(to: bytes).count
            }
            state.withLock { $0.statistics.bytesServedFromCache += found }
            missing = storedMeanwhile.filter { sources[$0] == nil }
        }
        for index in window {
            let wanted = layout.byteRange(ofChunk: index).clamped(to: bytes)
            switch sources[index] {
            case .cached(let data)?:
                try await deliver(Self.clip(data, chunkBytes: layout.byteRange(ofChunk: index), to: bytes))
            case .fetch(let fetch)?:
                try await deliverFromFetch(
                    fetch, bytes: wanted, chunk: (index, layout, asset, resource),
                    deliver: deliver)
            case nil:
                throw VideoError.shortBody(url: asset.url, expected: wanted, receivedBytes: 0)
            }
        }
        // What this window fetched is stored before the next one starts, so the disk never falls far behind.
        for fetch in held { await fetch.waitForStores() }
    }

    /// Joins the fetches registered for `indices` (of `info`); returns the indices none carries.
    private static func _join(
        _ indices: some Sequence<Int>, key: CacheKey, info: VideoContentInfo, state: inout VideoState,
        sources: inout [Int: ChunkSource], held: inout [RangeFetch]
    ) -> [Int] {
        var unclaimed: [Int] = []
        for index in indices {
            if case .fetch? = sources[index] { continue }
            guard let fetch = state.fetches[ChunkID(resource: key, index: index)], fetch.info == info else {
                unclaimed.append(index)
                continue
            }
            if !held.contains(where: { $0 === fetch }) {
                guard fetch.join() else {
                    unclaimed.append(index)
                    continue
                }
                held.append(fetch)
                state.statistics.fetchesJoined += 1
            }
            sources[index] = .fetch(fetch)
        }
        return unclaimed
    }

    /// Delivers `bytes` from `fetch` as they arrive; a chunk the fetch already stored and dropped is read from
    /// the cache (or fetched again if it went missing meanwhile).
    private func deliverFromFetch(
        _ fetch: RangeFetch, bytes: Range<Int>,
        chunk: (index: Int, layout: ChunkLayout, asset: AssetRequest, resource: ResourceState)?,
        deliver: (Data) async throws -> Void
    ) async throws {
        var position = bytes.lowerBound
        while position < bytes.upperBound {
            switch try await fetch.read(at: position, upTo: bytes.upperBound) {
            case .bytes(let data):
                try await deliver(data)
                position += data.count
            case .stored:
                guard let chunk else {
                    throw VideoError.shortBody(
                        url: URL(fileURLWithPath: "/"), expected: bytes,
                        receivedBytes: position - bytes.lowerBound)
                }
                let rest = position..<bytes.upperBound
                try await deliverStoredChunk(chunk.index, bytes: rest, fetch: fetch, chunk: chunk, deliver: deliver)
                return
            }
        }
    }

    private func deliverStoredChunk(
        _ index: Int, bytes: Range<Int>, fetch: RangeFetch,
        chunk: (index: Int, layout: ChunkLayout, asset: AssetRequest, resource: ResourceState),
        deliver: (Data) async throws -> Void
    ) async throws {
        let chunkBytes = chunk.layout.byteRange(ofChunk: index)
        if let data = await cachedChunks([index], key: fetch.key, info: fetch.info, layout: chunk.layout)[index] {
            state.withLock { $0.statistics.bytesServedFromCache += bytes.count }
            return try await deliver(Self.clip(data, chunkBytes: chunkBytes, to: bytes))
        }
        // Evicted (or never stored) between the fetch and this read: fetch the chunk again.
        let again = startFetch(chunk.asset, key: fetch.key, resource: chunk.resource, bytes: chunkBytes)
        _ = again.join()
        defer { again.leave() }
        try await deliverFromFetch(again, bytes: bytes, chunk: nil, deliver: deliver)
    }

    /// The cached chunks among `indices` that are complete and of the current content, read in one go
    /// (counting an eviction for each this util stored and no longer finds).
    func cachedChunks(_ indices: [Int], key: CacheKey, info: VideoContentInfo, layout: ChunkLayout) async
        -> [Int: Data]
    {
        guard !indices.isEmpty else { return [:] }
        let keys = indices.map { key.chunk($0) }
        let storageType = configuration.storageType
        var entries: [CacheEntry?]
        do {
            entries = try await manager.cachedEntries(forKeys: keys, storageType: storageType)
        } catch {
            // One unreadable chunk must not hide the others: read them one by one, a failure being a miss.
            entries = []
            for key in keys { entries.append(try? await manager.cachedEntry(forKey: key, storageType: storageType)) }
        }
        var found: [Int: Data] = [:]
        var missing: [Int] = []
        for (index, entry) in zip(indices, entries) {
            guard let entry else {
                missing.append(index)
                continue
            }
            guard entry.data.count == layout.byteRange(ofChunk: index).count, entry.metadata.etag == info.etag,
                entry.metadata.lastModified == info.lastModified
            else { continue }
            found[index] = entry.data
        }
        if !missing.isEmpty {
            state.withLock { state in
                for index in missing where state.resources[key]?.storedChunks.remove(index) != nil {
                    state.statistics.chunksEvicted += 1
                }
            }
        }
        return found
    }

    /// The part of a chunk holding `bytes`: the chunk itself, or a copy of the part (so every piece handed
    /// out starts at index 0 and keeps no more than it shows alive).
    static func clip(_ data: Data, chunkBytes: Range<Int>, to bytes: Range<Int>) -> Data {
        let wanted = chunkBytes.clamped(to: bytes)
        let lower = wanted.lowerBound - chunkBytes.lowerBound
        let upper = wanted.upperBound - chunkBytes.lowerBound
        if lower == 0, upper == data.count, data.startIndex == 0 { return data }
        return Data(data[(data.startIndex + lower)..<(data.startIndex + upper)])
    }
}
