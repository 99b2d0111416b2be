import Foundation
import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension VideoUtil {
    /// Fetches the chunks of `run` with one Range request, stores them, and returns them.
    ///
    /// The body is cut into chunks once complete (the loader returns whole bodies); nothing is
    /// stored from a response that does not match the request.
    func fetchRun(_ run: ChunkRun) async throws -> [Data] {
        let url = run.asset.url
        let layout = ChunkLayout(chunkSize: configuration.chunkSize, length: run.info.length)
        let bytes = layout.byteRange(ofChunks: run.chunks)
        let request = rangeRequest(run.asset, bytes: bytes, info: run.info)
        let response = try await send(request, url: url, range: bytes)
        switch response.statusCode {
        case 206:
            try await checkPartial(response, url: url, key: run.key, expected: bytes, info: run.info)
            await storeChunks(
                of: response.data, startingAt: run.chunks.lowerBound, key: run.key, info: run.info,
                onlyMissing: false
            )
            return Self.cut(response.data, startingAt: run.chunks.lowerBound, into: run.chunks, layout: layout)
        case 200:
            let body = response.data
            try await acceptFullBody(response, url: url, key: run.key, info: run.info)
            await storeChunks(of: body, startingAt: 0, key: run.key, info: run.info, onlyMissing: true)
            return Self.cut(body, startingAt: 0, into: run.chunks, layout: layout)
        case 416:
            await invalidate(key: run.key, old: run.info, replacement: nil)
            throw ReadRestart()
        default:
            throw VideoError.fetchFailed(
                url: url, range: bytes, underlying: .httpStatus(code: response.statusCode, url: url)
            )
        }
    }

    /// Fetches exactly `bytes` of an uncached resource; nothing is stored.
    func fetchExact(
        _ asset: AssetRequest, key: CacheKey, info: VideoContentInfo, bytes: Range<Int>
    ) async throws -> Data {
        let url = asset.url
        let response = try await send(rangeRequest(asset, bytes: bytes, info: info), url: url, range: bytes)
        switch response.statusCode {
        case 206:
            try await checkPartial(response, url: url, key: key, expected: bytes, info: info)
            return response.data
        case 200:
            try await acceptFullBody(response, url: url, key: key, info: info)
            let start = response.data.startIndex
            return Data(response.data[(start + bytes.lowerBound)..<(start + bytes.upperBound)])
        case 416:
            await invalidate(key: key, old: info, replacement: nil)
            throw ReadRestart()
        default:
            let status = AssetsError.httpStatus(code: response.statusCode, url: url)
            throw VideoError.fetchFailed(url: url, range: bytes, underlying: status)
        }
    }

    /// Checks that a 206 holds exactly `expected` of a resource still `info.length` long.
    private func checkPartial(
        _ response: DataResponse, url: URL, key: CacheKey, expected: Range<Int>, info: VideoContentInfo
    ) async throws {
        let header = response.header("content-range")
        guard let contentRange = ContentRange(header), let range = contentRange.range else {
            throw VideoError.contentRangeMismatch(url: url, expected: expected, actual: header)
        }
        if let total = contentRange.total, total != info.length {
            // The validators did not catch the change; forget the resource so the next read probes it.
            await invalidate(key: key, old: info, replacement: nil)
            throw VideoError.lengthChanged(url: url, expected: info.length, actual: total)
        }
        guard range == expected else {
            throw VideoError.contentRangeMismatch(url: url, expected: expected, actual: header)
        }
        guard response.data.count == expected.count else {
            throw VideoError.shortBody(url: url, expected: expected, receivedBytes: response.data.count)
        }
        // If-Range is not sent with a weak ETag, and some servers ignore it: a 206 of changed content
        // of the same length must not be spliced into the old chunks.
        if Self.validatorsDiffer(response, from: info) {
            await invalidate(key: key, old: info, replacement: nil)
            throw ReadRestart()
        }
    }

    /// Whether a response names a different version than `info`, by the validators it carries
    /// (ETags compared weakly: `W/"x"` and `"x"` are the same version).
    static func validatorsDiffer(_ response: DataResponse, from info: VideoContentInfo) -> Bool {
        func opaque(_ etag: String) -> String { etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag }
        if let etag = info.etag, let received = response.header("etag") { return opaque(etag) != opaque(received) }
        if let lastModified = info.lastModified, let received = response.header("last-modified") {
            return lastModified != received
        }
        return false
    }

    /// Handles a 200 to a Range request: returns when the server merely ignores Range (same content);
    /// when the content changed, replaces the resource with the body's and throws `ReadRestart`.
    private func acceptFullBody(
        _ response: DataResponse, url: URL, key: CacheKey, info: VideoContentInfo
    ) async throws {
        let fresh = Self.info(of: response, length: response.data.count)
        guard info.isDifferent(from: fresh) else { return }
        await invalidate(key: key, old: info, replacement: (fresh, response.data))
        throw ReadRestart()
    }

    /// Drops the chunks and record of `old` content (once, however many readers find the change),
    /// counting an invalidation, and adopts `replacement` when given.
    func invalidate(key: CacheKey, old: VideoContentInfo, replacement: (info: VideoContentInfo, body: Data)?) async {
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
        guard let replacement else { return }
        let resource = await adopt(replacement.info, key: key)
        if resource.isCacheable {
            await storeChunks(of: replacement.body, startingAt: 0, key: key, info: replacement.info, onlyMissing: false)
        }
    }
}
