import Foundation

/// A parsed HLS playlist (RFC 8216): a master playlist of variants, or a media playlist of segments.
public enum HLSPlaylist: Sendable, Hashable {
    /// Lists the variant streams and alternate renditions of one presentation.
    case master(HLSMasterPlaylist)
    /// Lists the segments of one variant or rendition.
    case media(HLSMediaPlaylist)
}

/// A master playlist: the variants (`EXT-X-STREAM-INF`) and alternate renditions (`EXT-X-MEDIA`).
public struct HLSMasterPlaylist: Sendable, Hashable {
    /// The variant streams, in playlist order.
    public var variants: [HLSVariant]
    /// The alternate renditions (audio, subtitles, …), in playlist order.
    package var renditions: [HLSRendition]

    /// The rendition a player picks for `variant`'s audio group: the default one with a URI, else the first.
    package func audioRendition(for variant: HLSVariant) -> HLSRendition? {
        guard let group = variant.audioGroup else { return nil }
        let candidates = renditions.filter { $0.type == "AUDIO" && $0.groupID == group && $0.uri != nil }
        return candidates.first(where: \.isDefault) ?? candidates.first
    }
}

/// One variant stream of a master playlist.
public struct HLSVariant: Sendable, Hashable {
    /// The variant's media playlist, resolved against the master playlist's URL.
    public var uri: URL
    /// Peak bits per second (`BANDWIDTH`, required).
    public var bandwidth: Int
    /// Average bits per second (`AVERAGE-BANDWIDTH`), when given.
    package var averageBandwidth: Int?
    /// Width and height in pixels (`RESOLUTION`), when given.
    public var resolution: HLSResolution?
    /// The RFC 6381 codec strings (`CODECS`), when given.
    public var codecs: [String]
    /// Frames per second (`FRAME-RATE`), when given.
    package var frameRate: Double?
    /// The `GROUP-ID` of its audio renditions (`AUDIO`), when given.
    package var audioGroup: String?
}

/// A `RESOLUTION` attribute: width × height in pixels.
public struct HLSResolution: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a resolution.
    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// An alternate rendition (`EXT-X-MEDIA`).
package struct HLSRendition: Sendable, Hashable {
    /// `AUDIO`, `VIDEO`, `SUBTITLES` or `CLOSED-CAPTIONS`.
    package var type: String
    /// The group variants refer to it by.
    package var groupID: String
    /// A human-readable name.
    package var name: String
    /// The language tag, when given.
    package var language: String?
    /// Whether a player picks it without a user's choice (`DEFAULT=YES`).
    package var isDefault: Bool
    /// Its media playlist; `nil` when its media is muxed into the variants.
    package var uri: URL?
}

/// A media playlist: segments with their durations, keys, init sections and discontinuities.
public struct HLSMediaPlaylist: Sendable, Hashable {
    /// The longest segment duration in seconds (`EXT-X-TARGETDURATION`): a live playlist is reloaded this often.
    public var targetDuration: Int
    /// The media sequence number of the first segment (`EXT-X-MEDIA-SEQUENCE`, default 0).
    package var mediaSequence: Int
    /// `VOD` or `EVENT` (`EXT-X-PLAYLIST-TYPE`), when given.
    package var playlistType: String?
    /// Whether no segment will be added (`EXT-X-ENDLIST`): a VOD or finished stream.
    public var isEndList: Bool
    /// The segments, in order.
    public var segments: [HLSSegment]

    /// The total duration of the segments in seconds.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

/// One media segment of a media playlist.
public struct HLSSegment: Sendable, Hashable {
    /// Where the segment's bytes are, resolved against the playlist's URL.
    public var uri: URL
    /// Its duration in seconds (`EXTINF`).
    public var duration: Double
    /// Its media sequence number.
    public var sequenceNumber: Int
    /// The sub-range of `uri` it occupies (`EXT-X-BYTERANGE`), when given.
    package var byteRange: Range<Int>?
    /// The initialization section that applies to it (`EXT-X-MAP`), when given.
    package var map: HLSMap?
    /// The key that encrypts it (`EXT-X-KEY`), when the method is not `NONE`.
    package var key: HLSKey?
    /// Whether an `EXT-X-DISCONTINUITY` precedes it (encoding or timestamps change here).
    package var discontinuity: Bool
}

/// An initialization section (`EXT-X-MAP`): the fMP4 header segments need.
package struct HLSMap: Sendable, Hashable {
    /// Where it is.
    package var uri: URL
    /// The sub-range of `uri` it occupies, when given.
    package var byteRange: Range<Int>?

    /// Creates an initialization section.
    package init(uri: URL, byteRange: Range<Int>? = nil) {
        self.uri = uri
        self.byteRange = byteRange
    }
}

/// An encryption key (`EXT-X-KEY`); segments are cached as delivered and never decrypted here.
package struct HLSKey: Sendable, Hashable {
    /// `AES-128` or `SAMPLE-AES` (`NONE` is represented by no key).
    package var method: String
    /// Where the key is fetched from.
    package var uri: URL?
    /// The `IV` attribute as written, when given.
    package var iv: String?
    /// The `KEYFORMAT` attribute, when given.
    package var keyFormat: String?
}
