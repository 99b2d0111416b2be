import Foundation

/// Something of an HLS stream fetched as bytes: a media segment, an init section (`EXT-X-MAP`) or a key.
public struct HLSResource: Sendable, Hashable {
    /// What the bytes are, which decides the file extension a download gives them when the URI has none.
    public enum Kind: String, Sendable, Hashable {
        case segment
        case initSection
        case key
    }

    /// Where the bytes are.
    public var uri: URL
    /// The sub-range of `uri` (`EXT-X-BYTERANGE`), when the resource is part of a larger file.
    public var byteRange: Range<Int>?
    /// What the bytes are.
    public var kind: Kind

    /// Creates a resource.
    public init(uri: URL, byteRange: Range<Int>? = nil, kind: Kind = .segment) {
        self.uri = uri
        self.byteRange = byteRange
        self.kind = kind
    }

    /// A media segment.
    package init(_ segment: HLSSegment) { self.init(uri: segment.uri, byteRange: segment.byteRange) }

    /// Everything `segment` needs, in fetch order: its key, its init section, then the segment itself.
    static func needed(by segment: HLSSegment) -> [HLSResource] {
        var resources: [HLSResource] = []
        if let uri = segment.key?.uri { resources.append(HLSResource(uri: uri, kind: .key)) }
        if let map = segment.map {
            resources.append(HLSResource(uri: map.uri, byteRange: map.byteRange, kind: .initSection))
        }
        resources.append(HLSResource(segment))
        return resources
    }

    /// The extensions players recognise (Debian's ffmpeg refuses HLS segments without one).
    static let playableExtensions: Set<String> = [
        "ts", "m4s", "mp4", "m4a", "m4v", "aac", "ac3", "ec3", "mp3", "vtt", "webvtt", "cmfv", "cmfa", "key", "bin",
    ]

    /// The file extension a downloaded or proxied copy keeps: the URI's when players know it, else by kind.
    package var fileExtension: String {
        let ext = uri.pathExtension.lowercased()
        if Self.playableExtensions.contains(ext) { return ext }
        switch kind {
        case .segment: return "ts"
        case .initSection: return "mp4"
        case .key: return "key"
        }
    }

    /// The `Content-Type` for the bytes, by extension.
    package var contentType: String {
        switch fileExtension {
        case "ts": return "video/mp2t"
        case "m4s", "mp4", "m4v", "cmfv": return "video/mp4"
        case "m4a", "cmfa": return "audio/mp4"
        case "aac": return "audio/aac"
        case "mp3": return "audio/mpeg"
        case "vtt", "webvtt": return "text/vtt"
        default: return "application/octet-stream"
        }
    }
}
