import Foundation
import MediaAssets

extension VideoDownloads {
    /// Fetches an HLS stream: reads its playlists once (and keeps their text and the local playlists),
    /// records its files, then fetches the missing ones several at a time.
    func downloadHLS(_ id: String) async throws {
        guard var record = state.withLock({ $0._record(id) }) else { return }
        let request = AssetRequest(url: record.url, headers: record.headers)
        if record.hls == nil {
            record.hls = try await planHLS(id, request: request, maximumBandwidth: record.maximumBandwidth)
            let files = record.hls
            state.withLock { $0._update(id) { $0.hls = files } }
            try await store.run { [self] in try saveRecord(id) }
            notify(id)
        }
        guard let files = record.hls?.files else { return }
        let usage = store.usage(of: record)
        state.withLock { $0.usage[id] = usage }
        let url = record.url
        try await hls.downloadFiles(
            files.map { ($0.resource, $0.name) }, into: store.directory(of: id), headers: record.headers,
            parallelism: configuration.maximumParallelSegments,
            beforeWrite: { [self] bytes in try claim(bytes, for: id, url: url) },
            completed: { [self] _ in notify(id) })
    }

    /// Reads the stream's playlists, writes their text and the local playlists into the download's
    /// directory, and lists its files.
    private func planHLS(_ id: String, request: AssetRequest, maximumBandwidth: Int?) async throws
        -> DownloadRecord.HLSFiles
    {
        let select: @Sendable (HLSMasterPlaylist) -> HLSVariant? = { master in
            guard let limit = maximumBandwidth else { return HLSUtil.highestBandwidth(master) }
            let fitting = master.variants.filter { $0.bandwidth <= limit }
            return fitting.max { $0.bandwidth < $1.bandwidth } ?? master.variants.min { $0.bandwidth < $1.bandwidth }
        }
        let plan: HLSUtil.DownloadPlan
        do {
            plan = try await hls.downloadPlan(for: request, select: select)
        } catch HLSError.unexpectedPlaylistKind(let url, let expected) {
            throw VideoDownloadError.notDownloadable(url: url, reason: "it is not a \(expected) playlist")
        }
        var playlists: [String: String] = [:]
        var texts: [(String, Data)] = plan.localPlaylists.map { ($0.name, Data($0.text.utf8)) }
        for (number, source) in plan.sourcePlaylists.enumerated() {
            let name = "source-\(number).m3u8"
            playlists[manager.cacheKey(for: source).rawValue] = name
            texts.append((name, try await hls.playlistData(for: source)))
        }
        let directory = store.directory(of: id)
        try await store.run { [store, texts] in
            for (name, data) in texts { try store.writeAtomically(data, to: directory.appendingPathComponent(name)) }
        }
        let files = plan.files.map { file in
            DownloadRecord.HLSFile(
                name: file.name, key: hls.cacheKey(for: file.resource).rawValue, uri: file.resource.uri,
                byteRange: file.resource.byteRange.map { [$0.lowerBound, $0.upperBound] },
                kind: file.resource.kind.rawValue)
        }
        return DownloadRecord.HLSFiles(files: files, playlists: playlists, localPlaylist: plan.entryName)
    }

    // MARK: Reading completed downloads

    /// The file and content info of a completed progressive download of `key`.
    func downloadedProgressive(forKey key: CacheKey) -> (file: URL, info: VideoContentInfo)? {
        state.withLock { $0.lookup.progressive[key.rawValue] }
    }

    /// The file of a segment, key or init section of a completed HLS download, by its cache key.
    func downloadedResource(forKey key: CacheKey) -> URL? {
        state.withLock { $0.lookup.hlsResources[key.rawValue] }
    }

    /// The text file of a playlist of a completed HLS download, by the playlist request's cache key.
    func downloadedPlaylist(forKey key: CacheKey) -> URL? {
        state.withLock { $0.lookup.hlsPlaylists[key.rawValue] }
    }
}
