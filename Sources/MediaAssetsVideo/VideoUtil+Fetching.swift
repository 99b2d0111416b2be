import Foundation
import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension VideoUtil {
    /// Makes, registers (when it stores) and starts a fetch of `bytes`: chunk-aligned bytes of a cacheable
    /// resource, or exactly the bytes asked of one that plays through uncached.
    func startFetch(_ asset: AssetRequest, key: CacheKey, resource: ResourceState, bytes: Range<Int>) -> RangeFetch {
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: resource.info.length)
        let fetch = makeFetch(key: key, info: resource.info, layout: layout, bytes: bytes, stores: resource.isCacheable)
        if resource.isCacheable { state.withLock { $0._register(fetch, chunks: layout.chunks(covering: bytes)) } }
        startTransfer(fetch, asset: asset, bytes: bytes)
        return fetch
    }

    /// Launches the Range request of `fetch` (made, and registered when it stores).
    func startTransfer(_ fetch: RangeFetch, asset: AssetRequest, bytes: Range<Int>) {
        launch(fetch) { [self] in try await transfer(fetch, asset: asset, bytes: bytes) }
    }

    func makeFetch(
        key: CacheKey, info: VideoContentInfo, layout: ChunkLayout, bytes: Range<Int>, stores: Bool,
        isDetached: Bool = false
    ) -> RangeFetch {
        RangeFetch(
            key: key, info: info, layout: layout, bytes: bytes, stores: stores, isDetached: isDetached,
            onAbandon: { [weak self] fetch in self?.state.withLock { $0._unregister(fetch, keepsActive: true) } }
        )
    }

    /// Runs `body` as the fetch's task (its errors end the fetch) beside the task storing its chunks.
    func launch(_ fetch: RangeFetch, body: @escaping @Sendable () async throws -> Void) {
        fetch.run(
            Task {
                do {
                    try await body()
                    fetch.finish()
                } catch {
                    fetch.finish(throwing: error)
                }
            })
        // Not cancelled with the fetch: the chunks that completed are worth keeping.
        Task { [self] in
            for await (index, data) in fetch.completedChunks {
                await storeChunk(data, index: index, key: fetch.key, info: fetch.info)
                fetch.chunkStored(index)
            }
            state.withLock { $0._unregister(fetch) }
            fetch.storesFinished()
        }
    }

    /// Sends the Range request of `fetch`, checks the answer's head and feeds it the body as it arrives.
    private func transfer(_ fetch: RangeFetch, asset: AssetRequest, bytes: Range<Int>) async throws {
        let url = asset.url
        let info = fetch.info
        let response = try await send(rangeRequest(asset, bytes: bytes, info: info))
        let head = response.head
        // A body that will not be read is cancelled at once, not left to arrive for nobody.
        let changed: Bool
        do {
            changed = try await checkHead(head, of: fetch, bytes: bytes, url: url)
        } catch {
            response.body.cancel()
            throw error
        }
        if changed {
            // The resource changed: the body is the new content, stored by a fetch readers starting over join.
            await replace(fetch.key, old: info, with: head, body: response.body, asset: asset)
            throw ReadRestart()
        }
        try await feed(fetch, from: response.body, url: url, requested: bytes)
    }

    /// Checks the head of a fetch's answer: a fitting 206, or a 200 that repeats the resource (false) or is
    /// a new version of it (true).
    private func checkHead(_ head: ResponseHead, of fetch: RangeFetch, bytes: Range<Int>, url: URL) async throws -> Bool
    {
        let info = fetch.info
        switch head.statusCode {
        case 206:
            try await checkPartial(head, url: url, key: fetch.key, expected: bytes, info: info)
            return false
        case 200:
            // Without a Content-Length (a chunked body) only the validators can tell a change.
            let fresh = Self.info(of: head, length: head.contentLength ?? info.length)
            if info.isDifferent(from: fresh) { return true }
            // A server ignoring Range: the whole body comes; the bytes asked are cut from it, the rest stored.
            fetch.begin(span: 0..<info.length, keep: bytes)
            return false
        case 416:
            await invalidate(key: fetch.key, old: info)
            throw ReadRestart()
        default:
            throw AssetsError.httpStatus(code: head.statusCode, url: url)
        }
    }

    /// Feeds `body` to `fetch` until it has what it needs; checks that nothing is missing.
    func feed(_ fetch: RangeFetch, from body: ResponseBody, url: URL, requested: Range<Int>) async throws {
        let key = fetch.key
        let info = fetch.info
        let storesChunk: (Int) -> Bool = { [self] index in
            state.withLock { state in
                guard let resource = state.resources[key], resource.info == info, resource.isCacheable else {
                    return false
                }
                return !resource.storedChunks.contains(index)
            }
        }
        var received = 0
        for try await piece in body {
            received += piece.count
            state.withLock { $0.statistics.bytesFetched += piece.count }
            guard fetch.append(piece, storesChunk: storesChunk) else { break }
        }
        let (next, end) = fetch.position
        if next < min(end, fetch.keep.upperBound) {
            throw VideoError.shortBody(url: url, expected: requested, receivedBytes: received)
        }
    }

    /// Checks that a 206 holds exactly `expected` of a resource still `info.length` long.
    private func checkPartial(
        _ head: ResponseHead, url: URL, key: CacheKey, expected: Range<Int>, info: VideoContentInfo
    ) async throws {
        let header = head.header("content-range")
        guard let contentRange = ContentRange(header), let range = contentRange.range else {
            throw VideoError.contentRangeMismatch(url: url, expected: expected, actual: header)
        }
        if let total = contentRange.total, total != info.length {
            // The validators did not catch the change; forget the resource so the next read probes it.
            await invalidate(key: key, old: info)
            throw VideoError.lengthChanged(url: url, expected: info.length, actual: total)
        }
        guard range == expected else {
            throw VideoError.contentRangeMismatch(url: url, expected: expected, actual: header)
        }
        // If-Range is not sent with a weak ETag, and some servers ignore it: a 206 of changed content
        // of the same length must not be spliced into the old chunks.
        if Self.validatorsDiffer(head, from: info) {
            await invalidate(key: key, old: info)
            throw ReadRestart()
        }
    }

    /// Whether a response names a different version than `info`, by the validators it carries
    /// (ETags compared weakly: `W/"x"` and `"x"` are the same version).
    static func validatorsDiffer(_ head: ResponseHead, from info: VideoContentInfo) -> Bool {
        func opaque(_ etag: String) -> String { etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag }
        if let etag = info.etag, let received = head.header("etag") { return opaque(etag) != opaque(received) }
        if let lastModified = info.lastModified, let received = head.header("last-modified") {
            return lastModified != received
        }
        return false
    }

    /// The resource changed: drops the old chunks and adopts the body of the 200 as the new content, stored
    /// as it arrives by a fetch that readers starting over join.
    private func replace(
        _ key: CacheKey, old: VideoContentInfo, with head: ResponseHead, body: ResponseBody, asset: AssetRequest
    ) async {
        await invalidate(key: key, old: old)
        guard let length = head.contentLength else {
            body.cancel()  // of unknown length: the read starting over probes the new content
            return
        }
        let info = Self.info(of: head, length: length)
        let resource = await adopt(info, key: key)
        guard resource.isCacheable, length > 0 else {
            body.cancel()
            return
        }
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: length)
        let fetch = makeFetch(key: key, info: info, layout: layout, bytes: 0..<length, stores: true, isDetached: true)
        fetch.begin(span: 0..<length, keep: 0..<0)
        state.withLock { $0._register(fetch, chunks: 0..<layout.chunkCount) }
        launch(fetch) { [self] in try await feed(fetch, from: body, url: asset.url, requested: 0..<length) }
    }

    /// Drops the chunks and record of `old` content (once, however many readers find the change),
    /// counting an invalidation.
    func invalidate(key: CacheKey, old: VideoContentInfo) async {
        let isCurrent = state.withLock { state -> Bool in
            guard let resource = state.resources[key], resource.info == old else { return false }
            state.resources[key] = nil
            state.statistics.invalidations += 1
            return true
        }
        guard isCurrent else { return }
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: old.length)
        // Chunks that fail to go are still rejected on read: their ETag is the old one.
        try? await removeChunks(of: key, layouts: [layout])
    }

    /// Stores one complete chunk while `info` is still the resource's content.
    func storeChunk(_ data: Data, index: Int, key: CacheKey, info: VideoContentInfo) async {
        let wanted = state.withLock { state -> Bool in
            guard let resource = state.resources[key], resource.info == info, resource.isCacheable else { return false }
            return true
        }
        guard wanted else { return }
        do {
            let entry = CacheEntry(data: data, metadata: metadata(for: info))
            try await manager.store(entry, forKey: key.chunk(index), storageType: configuration.storageType)
        } catch {
            return  // the bytes were still served; the chunk is fetched again next time
        }
        state.withLock { state in
            state.statistics.chunksStored += 1
            if state.resources[key]?.info == info { state.resources[key]?.storedChunks.insert(index) }
        }
    }

    /// A GET of `bytes` with the asset's headers, and `If-Range` when `info` has a validator.
    func rangeRequest(_ asset: AssetRequest, bytes: Range<Int>, info: VideoContentInfo?) -> URLRequest {
        var request = URLRequest(url: asset.url)
        for (name, value) in asset.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("bytes=\(bytes.lowerBound)-\(bytes.upperBound - 1)", forHTTPHeaderField: "Range")
        if let validator = info?.rangeValidator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        return request
    }

    /// Sends `request` through the manager, returning at the response head; a failure is the manager's
    /// `AssetsError`, as from every util.
    func send(_ request: URLRequest) async throws -> StreamedResponse {
        state.withLock { $0.statistics.rangeRequests += 1 }
        return try await manager.runtime.stream(request)
    }

    static func info(of head: ResponseHead, length: Int) -> VideoContentInfo {
        VideoContentInfo(
            length: length, contentType: head.header("content-type"), etag: head.header("etag"),
            lastModified: head.header("last-modified")
        )
    }
}
