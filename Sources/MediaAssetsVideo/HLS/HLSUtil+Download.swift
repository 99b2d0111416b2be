import Foundation
import MediaAssets

extension HLSUtil {
    /// How far a download has come.
    public struct DownloadProgress: Sendable, Hashable {
        /// Files written or found complete from an earlier, interrupted run.
        public var completedFiles: Int
        /// Files the download consists of (segments, keys, init sections; playlists not counted).
        public var totalFiles: Int
        /// Bytes written by this run.
        public var bytesWritten: Int
    }

    /// One media playlist a download or prefetch covers: the video variant, or its audio rendition.
    struct MediaPlaylistRequest: Sendable {
        /// "video" or "audio": the prefix of its files in a download.
        let name: String
        let request: AssetRequest
        let variant: HLSVariant?
    }

    /// Downloads a VOD stream for offline play into `directory` and returns the local playlist's URL.
    ///
    /// A master playlist downloads the variant `select` picks (by default the highest bandwidth) and
    /// its audio rendition; the result is then a local master playlist `index.m3u8` over
    /// `video.m3u8` and `audio.m3u8`, else `video.m3u8` alone. Every file keeps an extension its format
    /// is known by (`.ts`, `.m4s`, `.mp4`, `.aac`, …) so players open it. Files are written atomically,
    /// so a download killed at any point resumes with `download` into the same directory, fetching
    /// only what is missing (and nothing the cache still holds). The files live outside the cache:
    /// the cache's LRU never evicts them; delete the directory to remove the download.
    ///
    /// - Throws: `HLSError.unexpectedPlaylistKind` for a live stream (no `EXT-X-ENDLIST`), `.writeFailed`,
    ///   and the errors of `playlist(for:)` and `data(for:headers:)`.
    public func download(
        _ request: AssetRequest, to directory: URL,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        select: @Sendable (HLSMasterPlaylist) -> HLSVariant? = HLSUtil.highestBandwidth
    ) async throws -> URL {
        try createDirectory(directory)
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
        let totalFiles = files.reduce(0) { $0 + $1.count }
        var state = DownloadProgress(completedFiles: 0, totalFiles: totalFiles, bytesWritten: 0)
        progress?(state)
        for (resource, name) in files.joined() {
            try Task.checkCancellation()
            let path = directory.appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: path.path) {
                let bytes = try await data(for: resource, headers: request.headers)
                try write(bytes, to: path)
                state.bytesWritten += bytes.count
                counters.withLock { $0.filesDownloaded += 1 }
            }
            state.completedFiles += 1
            progress?(state)
        }
        for (index, (playlistRequest, media)) in plans.enumerated() {
            let names = Dictionary(files[index], uniquingKeysWith: { first, _ in first })
            let text = Self.localMediaPlaylist(media, files: names)
            try write(Data(text.utf8), to: directory.appendingPathComponent("\(playlistRequest.name).m3u8"))
        }
        guard plans.count > 1, let variant = plans[0].0.variant else {
            return directory.appendingPathComponent("\(plans[0].0.name).m3u8")
        }
        let master = Self.localMasterPlaylist(variant: variant, hasAudio: true)
        let masterURL = directory.appendingPathComponent("index.m3u8")
        try write(Data(master.utf8), to: masterURL)
        return masterURL
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

    /// Writes through a temporary file and a rename, so a killed download never leaves a torn file.
    private func write(_ data: Data, to url: URL) throws {
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw HLSError.writeFailed(path: url.path, reason: error.localizedDescription)
        }
    }
}
