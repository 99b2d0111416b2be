import Dispatch
import Foundation
import MediaAssets
@_spi(Fuzzing) import MediaAssetsEncryption

/// Seeds for the text and wire parsers: HLS playlists, HTTP request heads, proxy paths, RESP replies, and
/// disk-cache entry files written by a real `DiskCache`.
enum ProtocolSeeds {
    static func entityTag() -> [String: Data] {
        [
            "strong": Data("\"0f3a9c2e7d41b856\"".utf8),
            "weak": Data("W/\"r2d2\"".utf8),
            "list": Data(" \"a\", W/\"b,c\" ,, \"d\"".utf8),
            "any": Data("*".utf8),
        ]
    }

    static func hlsPlaylist() -> [String: Data] {
        let master = """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,RESOLUTION=1280x720,AUDIO="aud"
            high/index.m3u8

            """
        let media = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
            #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1.bin",IV=0x0123
            #EXTINF:5.5,first
            #EXT-X-BYTERANGE:1000@720
            segment.mp4
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            http://127.0.0.1/other/s2.ts
            #EXT-X-ENDLIST

            """
        return ["seed-master.m3u8": Data(master.utf8), "seed-media.m3u8": Data(media.utf8)]
    }

    /// Response header values, one per line: Cache-Control, Expires, Date, Age, Vary, Retry-After.
    static func httpHeaders() -> [String: Data] {
        [
            "seed-imf.txt": Data(
                """
                public, max-age="120", stale-while-revalidate=30, stale-if-error=86400
                Sun, 06 Nov 1994 08:49:37 GMT
                Sun, 06 Nov 1994 08:48:37 GMT
                20
                Accept, Accept-Encoding
                120
                """.utf8),
            "seed-rfc850.txt": Data(
                """
                no-cache
                Sunday, 06-Nov-94 08:49:37 GMT
                Sun Nov  6 08:49:37 1994
                0
                *
                Sun, 06 Nov 1994 08:50:37 GMT
                """.utf8),
            "seed-invalid.txt": Data("max-age=1e9, s-maxage=99999999999999999999\n0\n\n-1\nCookie\nsoon".utf8),
        ]
    }

    /// A URL, a redirect's Location, and an address range, one per line.
    static func fetchPolicy() -> [String: Data] {
        [
            "seed-public.txt": Data("https://cdn.example.com/a.png\n/b.png?x=1#frag\n10.20.0.0/16".utf8),
            "seed-metadata.txt": Data(
                "http://169.254.169.254/latest/meta-data/\nhttp://[::ffff:a9fe:a9fe]/\nfd00::/8".utf8),
            "seed-numeric.txt": Data("http://2130706433:8080/\n//0x7f.1/x\n127.0.0.1".utf8),
            "seed-schemes.txt": Data("file:///etc/passwd\nftp://admin.example.com/\n::/0".utf8),
        ]
    }

    static func httpRequestHead() -> [String: Data] {
        [
            "seed-get.txt": Data("GET /video.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-1023\r\n\r\n".utf8),
            "seed-head.txt": Data("HEAD /a.png?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n".utf8),
            "seed-suffix-range.txt": Data("GET /b HTTP/1.0\r\nRange: bytes=-500\r\nIf-None-Match: \"e\"\r\n\r\n".utf8),
        ]
    }

    /// Paths as `VideoProxy` writes them: `/<kind>/<base64url of [range|]origin URL>/<file name>`.
    static func downloadIndex() -> [String: Data] {
        let progressive = """
            {"downloads":[{"fileName":"media.mp4","headers":{"Authorization":"Bearer t"},"id":"d1",\
            "info":{"contentType":"video/mp4","etag":"\\"e1\\"","length":1048576},"key":"https://cdn/v.mp4",\
            "kind":"progressive","order":0,"state":"queued","url":"https://cdn/v.mp4"}],"nextNumber":2,"version":1}
            """
        let hls = """
            {"downloads":[{"fileName":"media.bin","headers":{},"id":"d7","kind":"hls","order":3,"state":"completed",\
            "key":"https://cdn/s.m3u8","url":"https://cdn/s.m3u8","maximumBandwidth":800000,"hls":{"files":[\
            {"name":"video-00000.ts","key":"https://cdn/seg0.ts","uri":"https://cdn/seg0.ts","kind":"segment"},\
            {"name":"video-init-00001.mp4","key":"https://cdn/i.mp4@bytes=0-99","uri":"https://cdn/i.mp4",\
            "byteRange":[0,100],"kind":"initSection"}],"playlists":{"https://cdn/s.m3u8":"source-0.m3u8"},\
            "localPlaylist":"video.m3u8"}}],"nextNumber":8,"version":1}
            """
        return ["seed-progressive.json": Data(progressive.utf8), "seed-hls.json": Data(hls.utf8)]
    }

    static func proxyPath() -> [String: Data] {
        func path(_ kind: String, _ token: String, _ name: String) -> Data {
            let encoded = Data(token.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            return Data("/\(kind)/\(encoded)/\(name)".utf8)
        }
        return [
            "seed-progressive.txt": path("p", "http://127.0.0.1:8080/v/clip.mp4", "clip.mp4"),
            "seed-playlist.txt": path("h", "https://127.0.0.1/hls/index.m3u8", "index.m3u8"),
            "seed-resource.txt": path("s", "720-1720|http://127.0.0.1/hls/seg.mp4", "seg.mp4"),
        ]
    }

    static func respReply() -> [String: Data] {
        [
            "seed-simple.resp": Data("+OK\r\n-ERR bad\r\n:-42\r\n$5\r\nhello\r\n$-1\r\n".utf8),
            "seed-array.resp": Data("*3\r\n$3\r\nfoo\r\n:12\r\n+bar\r\n*-1\r\n$0\r\n\r\n".utf8),
            "seed-moved.resp": Data("*2\r\n*1\r\n+a\r\n-MOVED 1 127.0.0.1:1\r\n".utf8),
            // A Redis entry value of format 3: header, room of 16 bytes for empty metadata, then bytes.
            "seed-entry-v3.value": Data("MARE\u{3}\0\0\0\u{10}\0\0\0\0".utf8) + Data(count: 16) + Data("abc".utf8),
        ]
    }

    /// Entry files a real `DiskCache` wrote (one with full metadata, one empty body), read back from disk.
    static func diskEntryFile() -> [String: Data] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("fuzz-disk-seeds-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let metadata = CacheMetadata(
            expires: Date(timeIntervalSinceReferenceDate: 9_000), etag: "\"e\"", lastModified: "yesterday",
            contentType: "image/png", partition: .image
        )
        let entries: [(CacheKey, CacheEntry)] = [
            ("http://127.0.0.1/a.png", CacheEntry(data: Data((0..<300).map { UInt8($0 % 251) }), metadata: metadata)),
            ("http://127.0.0.1/empty", CacheEntry(data: Data())),
        ]
        let done = DispatchSemaphore(value: 0)
        Task {
            if let cache = try? DiskCache(directory: directory) {
                for (key, entry) in entries { try? await cache.store(entry, forKey: key) }
                // A pin leaves a `.pins` file among the seeds.
                try? await cache.pin(.asset("http://127.0.0.1/a.png"))
                await cache.close()
            }
            done.signal()
        }
        done.wait()
        var seeds: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let file = enumerator?.nextObject() as? URL {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                let bytes = try? Data(contentsOf: file), bytes.count > 24
            else { continue }
            seeds["seed-\(seeds.count).entry"] = bytes
        }
        return seeds
    }

    /// Sealed values of an encrypted backend under the fuzzing key (their tags match, so mutations
    /// reach decryption and the sealed metadata), and a plaintext-shaped value.
    static func sealedEntry() -> [String: Data] {
        [
            "small.sealed": fuzzSealedEntrySeed(Data("hello".utf8), etag: "\"e\""),
            "empty.sealed": fuzzSealedEntrySeed(Data(), etag: nil),
            "larger.sealed": fuzzSealedEntrySeed(Data((0..<700).map { UInt8($0 % 251) }), etag: "W/\"weak\""),
        ]
    }
}
