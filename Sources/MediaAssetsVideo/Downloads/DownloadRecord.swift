import Foundation

/// What the downloads remember of one download across restarts (its bytes are on disk beside it).
struct DownloadRecord: Codable, Hashable, Sendable {
    /// The state kept on disk; `downloading` is stored as `queued`, so a restart resumes it.
    enum StoredState: String, Codable, Sendable {
        case queued
        case paused
        case completed
        case failed
    }

    /// One segment, init section or key of an HLS download.
    struct HLSFile: Codable, Hashable, Sendable {
        /// The file name in the download's directory.
        var name: String
        /// The cache key `HLSUtil` reads the resource under.
        var key: String
        var uri: URL
        /// `EXT-X-BYTERANGE`: the first byte and the end (exclusive), when the resource is part of a file.
        var byteRange: [Int]?
        var kind: String

        var resource: HLSResource {
            let range = byteRange.flatMap { $0.count == 2 && $0[0] >= 0 && $0[1] > $0[0] ? $0[0]..<$0[1] : nil }
            return HLSResource(uri: uri, byteRange: range, kind: HLSResource.Kind(rawValue: kind) ?? .segment)
        }
    }

    /// What an HLS download consists of, fixed once its playlists were read.
    struct HLSFiles: Codable, Hashable, Sendable {
        /// Every segment, init section and key.
        var files: [HLSFile]
        /// The original playlists (master and media): their cache keys and the files holding their text.
        var playlists: [String: String]
        /// The local playlist a player opens.
        var localPlaylist: String
    }

    /// `d<number>`: also the name of the download's directory.
    var id: String
    /// The cache key of the request (downloads are found by key, so token-stripped URLs share them).
    var key: String
    var url: URL
    /// Request headers (authorization), sent with every fetch of the download, also after a restart.
    var headers: [String: String]
    var kind: VideoDownload.Kind
    var state: StoredState
    /// The error of a failed download, as text.
    var failure: String?
    /// Its place in the queue.
    var order: Int
    /// A progressive resource as its first answer described it (length and validators); nil until then.
    var info: VideoContentInfo?
    /// The media file of a progressive download.
    var fileName: String
    /// The files of an HLS download, once known.
    var hls: HLSFiles?
    /// For an HLS master playlist: the highest variant at or below this bandwidth; the highest when nil.
    var maximumBandwidth: Int?

    /// Whether every name in the record is a plain file name inside the download's directory, every count
    /// possible and the URL fetchable: what a damaged or hostile record must not get past.
    var isSound: Bool {
        guard DownloadIndex.isValidID(id), Self.isPlainName(fileName), !key.isEmpty, order >= 0,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else { return false }
        if let info, info.length < 0 { return false }
        if let hls {
            guard Self.isPlainName(hls.localPlaylist), hls.files.allSatisfy({ Self.isPlainName($0.name) }),
                hls.playlists.values.allSatisfy(Self.isPlainName)
            else { return false }
        }
        return true
    }

    /// A file name with no path in it: not empty, not `.` or `..`, no `/` or NUL, at most 255 bytes.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && name.utf8.count <= 255
            && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0)
    }
}
