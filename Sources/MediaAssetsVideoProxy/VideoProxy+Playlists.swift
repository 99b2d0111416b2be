import Foundation
import MediaAssets
import MediaAssetsVideo

extension VideoProxy {
    /// The playlist at `url`, rewritten so every URI in it is a proxy URL.
    func playlist(_ url: URL, hls: HLSUtil) async throws -> Data {
        switch try await hls.playlist(for: AssetRequest(url: url)) {
        case .master(let master): return Data(rewritten(master).utf8)
        case .media(let media): return Data(rewritten(media).utf8)
        }
    }

    private func rewritten(_ media: HLSMediaPlaylist) -> String {
        var names: [HLSResource: String] = [:]
        for segment in media.segments {
            for resource in [
                segment.key?.uri.map { HLSResource(uri: $0, kind: .key) },
                segment.map.map { HLSResource(uri: $0.uri, byteRange: $0.byteRange, kind: .initSection) },
                HLSResource(segment),
            ].compactMap({ $0 }) where names[resource] == nil {
                let target = ProxyTarget(kind: .resource, origin: resource.uri, byteRange: resource.byteRange)
                names[resource] = proxyURL(target).absoluteString
            }
        }
        var text = HLSUtil.localMediaPlaylist(media, files: names)
        if !media.isEndList {
            // Live: keep it live for the player (it reloads the playlist through the proxy).
            text = text.replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: "")
                .replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "")
        }
        return text
    }

    private func rewritten(_ master: HLSMasterPlaylist) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7"]
        for rendition in master.renditions {
            var attributes = "TYPE=\(rendition.type),GROUP-ID=\"\(rendition.groupID)\",NAME=\"\(rendition.name)\""
            if let language = rendition.language { attributes += ",LANGUAGE=\"\(language)\"" }
            if rendition.isDefault { attributes += ",DEFAULT=YES,AUTOSELECT=YES" }
            if let uri = rendition.uri {
                attributes += ",URI=\"\(proxyURL(ProxyTarget(kind: .playlist, origin: uri)).absoluteString)\""
            }
            lines.append("#EXT-X-MEDIA:" + attributes)
        }
        for variant in master.variants {
            var attributes = "BANDWIDTH=\(variant.bandwidth)"
            if let average = variant.averageBandwidth { attributes += ",AVERAGE-BANDWIDTH=\(average)" }
            if let resolution = variant.resolution {
                attributes += ",RESOLUTION=\(resolution.width)x\(resolution.height)"
            }
            if !variant.codecs.isEmpty { attributes += ",CODECS=\"\(variant.codecs.joined(separator: ","))\"" }
            if let frameRate = variant.frameRate { attributes += ",FRAME-RATE=\(frameRate)" }
            if let audio = variant.audioGroup { attributes += ",AUDIO=\"\(audio)\"" }
            lines += [
                "#EXT-X-STREAM-INF:" + attributes,
                proxyURL(ProxyTarget(kind: .playlist, origin: variant.uri)).absoluteString,
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
