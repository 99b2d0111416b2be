import Foundation
import MediaAssets
import Synchronization

extension HLSUtil {
    /// How far a download has come.
    package struct DownloadProgress: Sendable, Hashable {
        /// Files written or found complete from an earlier, interrupted run.
        package var completedFiles: Int
        /// Files the download consists of (segments, keys, init sections; playlists not counted).
        package var totalFiles: Int
        /// Bytes written by this run.
        package var bytesWritten: Int
    }

    /// One media playlist a download or prefetch covers: the video variant, or its audio rendition.
    struct MediaPlaylistRequest: Sendable {
        /// "video" or "audio": the prefix of its files in a download.
        let name: String
        let request: AssetRequest
        let variant: HLSVariant?
    }

    /// What a download of a stream consists of: its media playlists, their files, and the local playlists.
    struct DownloadPlan: Sendable {
        /// Every segment, init section and key, with its local file name, in playing order.
        var files: [(resource: HLSResource, name: String)]
        /// The local playlists to write (`video.m3u8`, `audio.m3u8`, `index.m3u8`) and their text.
        var localPlaylists: [(name: String, text: String)]
        /// The local playlist a player opens.
        var entryName: String
        /// The playlists read (the master and the media playlists), to keep their text.
        var sourcePlaylists: [AssetRequest]
    }

    /// Downloads a VOD stream for offline play into `directory` and returns the local playlist's URL.
    ///
    /// A master playlist downloads the variant `select` picks (by default the highest bandwidth) and
    /// its audio rendition; the result is then a local master playlist `index.m3u8` over
    /// `video.m3u8` and `audio.m3u8`, else `video.m3u8` alone. Every file keeps an extension its format
    /// is known by (`.ts`, `.m4s`, `.mp4`, `.aac`, …) so players open it. Segments, keys and init sections
    /// are fetched `parallelism` at a time and written once, into the directory only (never into the
    /// cache: a file the cache already holds is copied from it). Files are written atomically, so a
    /// download killed at any point resumes with `download` into the same directory, fetching only what
    /// is missing. A failed fetch lets the fetches under way finish (their files are kept), then throws.
    /// The files live outside the cache: its LRU never evicts them; delete the directory to remove the
    /// download (or use `VideoDownloads`, which keeps a queue of downloads across restarts).
    ///
    /// - Throws: `HLSError.unexpectedPlaylistKind` for a live stream (no `EXT-X-ENDLIST`), `.writeFailed`,
    ///   and the errors of `playlist(for:)` and `data(for:headers:)`.
    package func download(
        _ request: AssetRequest, to directory: URL,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        select: @Sendable (HLSMasterPlaylist) -> HLSVariant? = HLSUtil.highestBandwidth,
        parallelism: Int = 8
    ) async throws -> URL {
        try createDirectory(directory)
        let plan = try await downloadPlan(for: request, select: select)
        let total = plan.files.count
        let counts = Mutex(DownloadProgress(completedFiles: 0, totalFiles: total, bytesWritten: 0))
        progress?(counts.withLock { $0 })
        try await downloadFiles(
            plan.files, into: directory, headers: request.headers, parallelism: parallelism,
            completed: { bytes in
                let now = counts.withLock { counts -> DownloadProgress in
                    counts.completedFiles += 1
                    counts.bytesWritten += bytes
                    return counts
                }
                progress?(now)
            })
        for (name, text) in plan.localPlaylists {
            try write(Data(text.utf8), to: directory.appendingPathComponent(name))
        }
        return directory.appendingPathComponent(plan.entryName)
    }

    /// Reads the playlists of a VOD stream and names every file of the download.
    ///
    /// - Throws: `HLSError.unexpectedPlaylistKind` for a live stream; the errors of `playlist(for:)`.
    func downloadPlan(
        for request: AssetRequest, select: (HLSMasterPlaylist) -> HLSVariant?
    ) async throws -> DownloadPlan {
        var plans: [(MediaPlaylistRequest, HLSMediaPlaylist)] = []
        for playlistRequest in try await mediaPlaylistRequests(for: request, select: select) {
            let media = try await mediaPlaylist(for: playlistRequest.request)
            guard media.isEndList else {
                let url = playlistRequest.request.url
                throw HLSError.unexpectedPlaylistKind(url: url, expected: "VOD (EXT-X-ENDLIST)")
            }
            plans.append((playlistRequest, media))
        }
        let files = plans.map { Self.localFiles(of: $0.1, prefix: $0.0.name) }
        var localPlaylists: [(String, String)] = []
        for (index, (playlistRequest, media)) in plans.enumerated() {
            let names = Dictionary(files[index], uniquingKeysWith: { first, _ in first })
            localPlaylists.append(("\(playlistRequest.name).m3u8", Self.localMediaPlaylist(media, files: names)))
        }
        var entryName = "\(plans[0].0.name).m3u8"
        if plans.count > 1, let variant = plans[0].0.variant {
            localPlaylists.append(("index.m3u8", Self.localMasterPlaylist(variant: variant, hasAudio: true)))
            entryName = "index.m3u8"
        }
        var sources = [request]
        for (playlistRequest, _) in plans where playlistRequest.request.url != request.url {
            sources.append(playlistRequest.request)
        }
        return DownloadPlan(
            files: files.joined().map { ($0.0, $0.1) }, localPlaylists: localPlaylists, entryName: entryName,
            sourcePlaylists: sources)
    }

    /// Fetches the files of `files` missing from `directory`, `parallelism` at a time, and writes each one
    /// atomically; `beforeWrite` may refuse a file (a quota), `completed` hears of each file present (with
    /// the bytes written, 0 when it was there already). A failure lets the fetches under way finish, starts
    /// no new one, and is thrown.
    func downloadFiles(
        _ files: [(resource: HLSResource, name: String)], into directory: URL, headers: [String: String],
        parallelism: Int, beforeWrite: @escaping @Sendable (Int) throws -> Void = { _ in },
        completed: @escaping @Sendable (Int) -> Void
    ) async throws {
        var pending = files[...]
        var firstError: Error?
        await withThrowingTaskGroup(of: Int.self) { group in
            func startNext() -> Bool {
                guard firstError == nil, let (resource, name) = pending.popFirst() else { return false }
                let path = directory.appendingPathComponent(name)
                group.addTask { [self] in
                    if FileManager.default.fileExists(atPath: path.path) { return 0 }
                    let bytes = try await bytesForDownload(resource, headers: headers)
                    try beforeWrite(bytes.count)
                    try await writeOffPool(bytes, to: path)
                    counters.withLock { $0.filesDownloaded += 1 }
                    return bytes.count
                }
                return true
            }
            for _ in 0..<max(1, parallelism) where !startNext() { break }
            while let outcome = await group.nextResult() {
                switch outcome {
                case .success(let bytes): completed(bytes)
                case .failure(let error): if firstError == nil { firstError = error }
                }
                _ = startNext()
            }
        }
        if let firstError { throw firstError }
        try Task.checkCancellation()
    }

    /// The bytes of `resource` for a download: from the cache when it holds them, else from the origin
    /// (and not stored in the cache: the download is their only copy).
    private func bytesForDownload(_ resource: HLSResource, headers: [String: String]) async throws -> Data {
        if let cached = try? await manager.readData(forKey: cacheKey(for: resource), storageType: storageType) {
            counters.withLock { $0.bytesServedFromCache += cached.count }
            return cached
        }
        return try await fetch(AssetRequest(url: resource.uri, headers: headers), range: resource.byteRange)
    }

    /// The media playlists `request` stands for: itself, or a master's chosen variant and its audio.
    func mediaPlaylistRequests(
        for request: AssetRequest, select: (HLSMasterPlaylist) -> HLSVariant?
    ) async throws -> [MediaPlaylistRequest] {
        switch try await playlist(for: request) {
        case .media:
            return [MediaPlaylistRequest(name: "video", request: request, variant: nil)]
        case .master(let master):
            guard let variant = select(master) else {
                throw HLSError.unexpectedPlaylistKind(url: request.url, expected: "master with a variant")
            }
            let video = derived(request, url: variant.uri)
            var requests = [MediaPlaylistRequest(name: "video", request: video, variant: variant)]
            if let audio = master.audioRendition(for: variant)?.uri {
                let audioRequest = derived(request, url: audio)
                requests.append(MediaPlaylistRequest(name: "audio", request: audioRequest, variant: nil))
            }
            return requests
        }
    }

    private func derived(_ request: AssetRequest, url: URL) -> AssetRequest {
        AssetRequest(url: url, priority: request.priority, headers: request.headers)
    }

    /// The local file name of every resource of `media`: `<prefix>-<n>.<ext>`, shared resources once.
    static func localFiles(of media: HLSMediaPlaylist, prefix: String) -> [(HLSResource, String)] {
        var names: [HLSResource: String] = [:]
        var ordered: [(HLSResource, String)] = []
        for segment in media.segments {
            for resource in HLSResource.needed(by: segment) where names[resource] == nil {
                let kind = resource.kind == .segment ? "" : "\(resource.kind.rawValue)-"
                let number = String(names.count)
                let padded = String(repeating: "0", count: max(0, 5 - number.count)) + number
                let name = "\(prefix)-\(kind)\(padded).\(resource.fileExtension)"
                names[resource] = name
                ordered.append((resource, name))
            }
        }
        return ordered
    }

    /// `media` with every URI replaced by its local file or proxy URL (byte ranges dropped: each part is
    /// a file of its own).
    package static func localMediaPlaylist(_ media: HLSMediaPlaylist, files: [HLSResource: String]) -> String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(media.targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:\(media.mediaSequence)", "#EXT-X-PLAYLIST-TYPE:VOD",
        ]
        var currentMap: HLSMap?
        var currentKey: HLSKey?
        for segment in media.segments {
            if segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if segment.key != currentKey {
                currentKey = segment.key
                if let key = segment.key, let uri = key.uri, let file = files[HLSResource(uri: uri, kind: .key)] {
                    var attributes = "METHOD=\(key.method),URI=\"\(file)\""
                    if let iv = key.iv { attributes += ",IV=\(iv)" }
                    if let format = key.keyFormat { attributes += ",KEYFORMAT=\"\(format)\"" }
                    lines.append("#EXT-X-KEY:" + attributes)
                } else {
                    lines.append("#EXT-X-KEY:METHOD=NONE")
                }
            }
            if let map = segment.map, map != currentMap {
                currentMap = map
                let file = files[HLSResource(uri: map.uri, byteRange: map.byteRange, kind: .initSection)] ?? ""
                lines.append("#EXT-X-MAP:URI=\"\(file)\"")
            }
            lines.append("#EXTINF:\(segment.duration),")
            lines.append(files[HLSResource(segment)] ?? "")
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A master playlist over the local `video.m3u8` and, with `hasAudio`, `audio.m3u8`.
    static func localMasterPlaylist(variant: HLSVariant, hasAudio: Bool) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7"]
        var attributes = "BANDWIDTH=\(variant.bandwidth)"
        if let resolution = variant.resolution { attributes += ",RESOLUTION=\(resolution.width)x\(resolution.height)" }
        if !variant.codecs.isEmpty { attributes += ",CODECS=\"\(variant.codecs.joined(separator: ","))\"" }
        if hasAudio {
            lines.append(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio\",DEFAULT=YES,AUTOSELECT=YES,"
                    + "URI=\"audio.m3u8\""
            )
            attributes += ",AUDIO=\"audio\""
        }
        lines += ["#EXT-X-STREAM-INF:" + attributes, "video.m3u8"]
        return lines.joined(separator: "\n") + "\n"
    }

    private func createDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw HLSError.writeFailed(path: directory.path, reason: error.localizedDescription)
        }
    }

    /// `write(_:to:)` on a dispatch queue: file I/O never holds a thread of the cooperative pool.
    func writeOffPool(_ data: Data, to url: URL) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async { [self] in continuation.resume(with: Result { try write(data, to: url) }) }
        }
    }

    /// Writes through a temporary file and a rename, so a killed download never leaves a torn file.
    func write(_ data: Data, to url: URL) throws {
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw HLSError.writeFailed(path: url.path, reason: error.localizedDescription)
        }
    }
}
