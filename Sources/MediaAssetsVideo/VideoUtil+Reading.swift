import Foundation
import MediaAssets

extension VideoUtil {
    /// Delivers the bytes `bytes` of the resource in order, piece by piece, to `deliver`.
    ///
    /// Works through the range a window of chunks at a time: cached chunks go out at once, and
    /// each missing run is fetched (or joined) concurrently and goes out when it completes.
    /// An uncached resource is fetched exactly, in pieces of at most `uncachedPieceSize` bytes.
    func read(
        asset: AssetRequest, key: CacheKey, resource: ResourceState, bytes: Range<Int>, uncachedPieceSize: Int = .max,
        deliver: (Data) throws -> Void
    ) async throws {
        guard resource.isCacheable else {
            var start = bytes.lowerBound
            while start < bytes.upperBound {
                let end = bytes.upperBound - start > uncachedPieceSize ? start + uncachedPieceSize : bytes.upperBound
                try deliver(try await fetchExact(asset, key: key, info: resource.info, bytes: start..<end))
                start = end
            }
            return
        }
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: resource.info.length)
        let chunks = layout.chunks(covering: bytes)
        var start = chunks.lowerBound
        while start < chunks.upperBound {
            try Task.checkCancellation()
            let window = start..<min(chunks.upperBound, start + windowChunkCount)
            try await readWindow(
                window, asset: asset, key: key, info: resource.info, layout: layout, bytes: bytes, deliver: deliver
            )
            start = window.upperBound
        }
    }

    private func readWindow(
        _ window: Range<Int>, asset: AssetRequest, key: CacheKey, info: VideoContentInfo, layout: ChunkLayout,
        bytes: Range<Int>, deliver: (Data) throws -> Void
    ) async throws {
        var ready: [Int: Data] = [:]
        var missing: [ChunkID] = []
        var cachedBytes = 0
        for index in window {
            if let data = await cachedChunk(key: key, index: index, info: info, layout: layout) {
                ready[index] = data
                cachedBytes += layout.byteRange(ofChunk: index).clamped(to: bytes).count
            } else {
                missing.append(ChunkID(resource: key, index: index))
            }
        }
        state.withLock { $0.statistics.bytesServedFromCache += cachedBytes }
        let (outcomes, sink) = AsyncStream<RequestPool<ChunkID, Data>.Outcome>.makeStream()
        let fetch: @Sendable ([ChunkID]) async throws -> [ChunkID: Data] = { [self] ids in
            let chunks = ids[0].index..<(ids[ids.count - 1].index + 1)
            let run = ChunkRun(key: key, asset: asset, info: info, chunks: chunks)
            return Dictionary(uniqueKeysWithValues: zip(ids, try await fetchRun(run)))
        }
        let ticket = chunkPool.flights(
            for: missing, grouping: ChunkRun.runs, deliver: { sink.yield($0) }, operation: fetch
        )
        defer {
            ticket.leave()
            sink.finish()
        }
        var pendingFlights = ticket.flightCount
        var outcomeIterator = outcomes.makeAsyncIterator()
        var next = window.lowerBound
        while next < window.upperBound {
            if let data = ready.removeValue(forKey: next) {
                try deliver(Self.clip(data, chunkBytes: layout.byteRange(ofChunk: next), to: bytes))
                next += 1
                continue
            }
            guard pendingFlights > 0 else {
                let expected = layout.byteRange(ofChunk: next)
                throw VideoError.shortBody(url: asset.url, expected: expected, receivedBytes: 0)
            }
            guard let outcome = await outcomeIterator.next() else { throw CancellationError() }
            pendingFlights -= 1
            for (id, data) in try outcome.get() where id.resource == key && window.contains(id.index) {
                if ready[id.index] == nil, id.index >= next { ready[id.index] = data }
            }
        }
    }

    /// The cached chunk `index` when present, complete and of the current content; otherwise `nil`
    /// (counting an eviction when this util had stored it).
    private func cachedChunk(key: CacheKey, index: Int, info: VideoContentInfo, layout: ChunkLayout) async -> Data? {
        // A chunk that cannot be read is fetched again, like a missing one.
        let entry = try? await manager.cachedEntry(forKey: key.chunk(index), storageType: configuration.storageType)
        guard let entry else {
            state.withLock { state in
                if state.resources[key]?.storedChunks.remove(index) != nil { state.statistics.chunksEvicted += 1 }
            }
            return nil
        }
        guard entry.data.count == layout.byteRange(ofChunk: index).count, entry.metadata.etag == info.etag,
            entry.metadata.lastModified == info.lastModified
        else {
            return nil
        }
        return entry.data
    }

    /// The part of a chunk holding `bytes`, without copying.
    static func clip(_ data: Data, chunkBytes: Range<Int>, to bytes: Range<Int>) -> Data {
        let wanted = chunkBytes.clamped(to: bytes)
        let lower = wanted.lowerBound - chunkBytes.lowerBound
        let upper = wanted.upperBound - chunkBytes.lowerBound
        if lower == 0, upper == data.count { return data }
        return data[(data.startIndex + lower)..<(data.startIndex + upper)]
    }

    /// Cuts `body`, which starts at chunk `firstChunk`, into the chunks `chunks` (slices, no copies).
    static func cut(_ body: Data, startingAt firstChunk: Int, into chunks: Range<Int>, layout: ChunkLayout) -> [Data] {
        let origin = layout.byteRange(ofChunk: firstChunk).lowerBound
        return chunks.map { index in
            let range = layout.byteRange(ofChunk: index)
            return body[(body.startIndex + range.lowerBound - origin)..<(body.startIndex + range.upperBound - origin)]
        }
    }

    /// Stores every complete chunk of `body` (which starts at chunk `firstChunk`) while `info` is still the
    /// resource's content; with `onlyMissing`, skips chunks this util already stored.
    func storeChunks(
        of body: Data, startingAt firstChunk: Int, key: CacheKey, info: VideoContentInfo, onlyMissing: Bool
    ) async {
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: info.length)
        let storageType = configuration.storageType
        var offset = 0
        var index = firstChunk
        while index < layout.chunkCount {
            let count = layout.byteRange(ofChunk: index).count
            guard body.count - offset >= count else { break }
            let slice = body[(body.startIndex + offset)..<(body.startIndex + offset + count)]
            offset += count
            defer { index += 1 }
            let wanted = state.withLock { state -> Bool in
                guard let resource = state.resources[key], resource.info == info, resource.isCacheable else {
                    return false
                }
                return !(onlyMissing && resource.storedChunks.contains(index))
            }
            guard wanted else { continue }
            // A memory backend would keep the whole body alive behind a slice.
            let bytes = storageType == .disk ? slice : Data(slice)
            do {
                let entry = CacheEntry(data: bytes, metadata: metadata(for: info))
                try await manager.store(entry, forKey: key.chunk(index), storageType: storageType)
            } catch {
                continue  // the bytes are still served; the chunk is fetched again next time
            }
            state.withLock { state in
                state.statistics.chunksStored += 1
                if state.resources[key]?.info == info { state.resources[key]?.storedChunks.insert(index) }
            }
        }
    }
}
