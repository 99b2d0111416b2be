import Foundation
import SampleOrigin
import TestSupport

/// Generated HLS streams for tests: playlist texts, and a whole stream served by a `SampleOrigin`.
enum HLSTestStream {
    /// A master playlist of `variants` variants `v<n>/index.m3u8` sharing audio group "aud".
    static func masterPlaylist(variants: Int) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6",
                     "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"en\",DEFAULT=YES,URI=\"audio/index.m3u8\""]
        for index in 0..<variants {
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\((index + 1) * 500_000),RESOLUTION=640x360,"
                + "CODECS=\"avc1.4d401e,mp4a.40.2\",AUDIO=\"aud\"")
            lines.append("v\(index)/index.m3u8")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A VOD media playlist of `segments` 2-second segments `seg<n>.ts`, keyed, with an init section.
    static func mediaPlaylist(segments: Int, extension ext: String = "ts", endList: Bool = true) -> String {
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-MAP:URI=\"init.mp4\"",
                     "#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\""]
        for index in 0..<segments {
            if index == segments / 2 { lines.append("#EXT-X-DISCONTINUITY") }
            lines += ["#EXTINF:2.0,", "seg\(index).\(ext)"]
        }
        if endList { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
