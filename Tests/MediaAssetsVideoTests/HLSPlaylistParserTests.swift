import Foundation
@_spi(Fuzzing) import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

@Suite struct HLSPlaylistParserTests {
    let base = URL(string: "http://127.0.0.1:8080/streams/show/index.m3u8")!

    func parse(_ text: String) throws -> HLSPlaylist { try HLSPlaylist.parse(Data(text.utf8), url: base) }

    @Test func aMasterPlaylistListsVariantsAndRenditions() throws {
        // Given a master playlist with two variants and an audio group
        let text = """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",URI="audio/de.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,RESOLUTION=640x360,\
            CODECS="avc1.4d401e,mp4a.40.2",FRAME-RATE=29.97,AUDIO="aud"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,RESOLUTION=1280x720,AUDIO="aud"
            http://cdn.example/high.m3u8?token=1
            """

        // When it is parsed
        guard case .master(let master) = try parse(text) else { Issue.record("not a master playlist"); return }

        // Then every attribute is read and URIs resolve against the playlist
        #expect(master.variants.count == 2)
        let low = master.variants[0]
        #expect(low.uri.absoluteString == "http://127.0.0.1:8080/streams/show/low/index.m3u8")
        #expect(low.bandwidth == 1_280_000 && low.averageBandwidth == 1_000_000)
        #expect(low.resolution == HLSResolution(width: 640, height: 360))
        #expect(low.codecs == ["avc1.4d401e", "mp4a.40.2"])
        #expect(low.frameRate == 29.97 && low.audioGroup == "aud")
        #expect(master.variants[1].uri.absoluteString == "http://cdn.example/high.m3u8?token=1")
        #expect(master.renditions.map(\.name) == ["English", "Deutsch"])
        #expect(master.audioRendition(for: low)?.language == "en")
        #expect(master.audioRendition(for: low)?.uri?.path == "/streams/show/audio/en.m3u8")
    }

    @Test func aMediaPlaylistCarriesEveryTagToItsSegments() throws {
        // Given a media playlist with a key, an init section, byte ranges and a discontinuity
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
            #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1.bin",IV=0x0123
            #EXTINF:5.5,first
            #EXT-X-BYTERANGE:1000@720
            media.m4s
            #EXTINF:6.0,
            #EXT-X-BYTERANGE:500
            media.m4s
            # a comment
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            /abs/seg3.ts
            #EXT-X-ENDLIST
            """

        // When it is parsed
        guard case .media(let media) = try parse(text) else { Issue.record("not a media playlist"); return }

        // Then the segments carry their durations, ranges, map, key and discontinuity
        #expect(media.targetDuration == 6 && media.mediaSequence == 100 && media.playlistType == "VOD")
        #expect(media.isEndList && media.duration == 15.5)
        #expect(media.segments.map(\.sequenceNumber) == [100, 101, 102])
        #expect(media.segments[0].byteRange == 720..<1720)
        #expect(media.segments[1].byteRange == 1720..<2220)
        #expect(
            media.segments[0].map
                == HLSMap(
                    uri: URL(string: "http://127.0.0.1:8080/streams/show/init.mp4")!,
                    byteRange: 0..<720))
        #expect(media.segments[1].key?.uri?.absoluteString == "http://127.0.0.1:8080/streams/keys/k1.bin")
        #expect(media.segments[1].key?.method == "AES-128" && media.segments[1].key?.iv == "0x0123")
        #expect(media.segments[2].key == nil && media.segments[2].discontinuity)
        #expect(!media.segments[1].discontinuity)
        #expect(media.segments[2].uri.absoluteString == "http://127.0.0.1:8080/abs/seg3.ts")
    }

    @Test(arguments: [
        ("#EXT-X-TARGETDURATION:6\n#EXTINF:4,\nseg.ts", 1, "#EXTM3U"),
        ("#EXTM3U\n#EXTINF:4,\nseg.ts", 3, "TARGETDURATION"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:abc,\nseg.ts", 3, "EXTINF duration"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:6\nseg.ts", 3, "must follow EXTINF"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8", 2, "BANDWIDTH"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv.m3u8", 3, "without a URI"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1\nv.m3u8", 2, "unterminated"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:4,\n#EXT-X-BYTERANGE:10\ns.ts", 5, "without an offset"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-KEY:METHOD=AES-128\n", 3, "URI"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXTINF:4,\ns.ts", 4, "master playlist"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999\n", 2, "not an integer"),
    ])
    func malformedPlaylistsNameTheirLine(text: String, line: Int, reason: String) throws {
        // Given a malformed playlist, When it is parsed
        let error = #expect(throws: HLSError.self) { try parse(text) }

        // Then the error names the line and why
        guard case .malformedPlaylist(_, let errorLine, let errorReason)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(errorLine == line)
        #expect(errorReason.contains(reason), "\(errorReason)")
    }

    @Test func seededMutationsNeverCrashTheParser() {
        // Given valid playlists of both kinds
        let seeds = [SampleOrigin.hlsMasterPlaylist(variants: 2), SampleOrigin.hlsMediaPlaylist(segments: 6)].map {
            Array($0.utf8)
        }
        var generator = SeededGenerator(seed: 0x48_4C_53)
        var parsed = 0

        // When 1,000 mutations of them (byte flips, cuts, splices, repeated lines) are parsed
        for round in 0..<1_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0...Int.random(in: 0..<4, using: &generator) {
                guard !bytes.isEmpty else { break }
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.removeSubrange(position...)
                case 2:
                    bytes.insert(
                        contentsOf: Array("@,=\"#EXT-X-BYTERANGE:".utf8).shuffled(using: &generator),
                        at: position)
                case 3: bytes.insert(contentsOf: bytes[position...].prefix(64), at: position)
                default: bytes.insert(UInt8(ascii: "\n"), at: position)
                }
            }
            if round % 10 == 0 { fuzzHLSPlaylist(Data(bytes)) }
            if (try? HLSPlaylist.parse(Data(bytes), url: base)) != nil { parsed += 1 }
        }

        // Then nothing crashed, and some mutants were still valid playlists (the parser was exercised)
        #expect(parsed > 0 && parsed < 1_000)
    }
}
