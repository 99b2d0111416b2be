import Foundation
import MediaAssets
import MediaAssetsImage
import MediaAssetsVideo
import SampleOrigin
import TestSupport
import Testing

/// Stills through FFmpeg's demuxer reading the chunk cache: the frame `ffmpeg` shows at that time, only the
/// blocks the demuxer asks for fetched, cached for the next ask, and typed errors for what cannot be read.
@Suite(
    "Video stills through FFmpeg",
    .enabled(if: ChildProcess.executable("ffmpeg") != nil, "needs ffmpeg on PATH and its libraries (CI installs them)")
)
struct VideoFrameTests {
    /// Makes an H.264 MP4 of `seconds` with its `moov` box at the end (ffmpeg's default), a keyframe every 2 s
    /// and B-frames, so that an exact frame needs decoding from the keyframe before it.
    static func makeMovie(
        in directory: URL, seconds: Int = 10, size: String = "320x240", name: String = "movie.mp4",
        extra: [String] = []
    ) async throws -> Data {
        let ffmpeg = try #require(ChildProcess.executable("ffmpeg"))
        let movie = directory.appendingPathComponent(name)
        let made = try await ChildProcess.run(
            ffmpeg,
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=duration=\(seconds):size=\(size):rate=25",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-bf", "2", "-pix_fmt", "yuv420p",
            ] + extra + [movie.path],
            timeout: .seconds(600))
        #expect(made.status == 0, "ffmpeg could not make the movie: \(made.output)")
        return try Data(contentsOf: movie)
    }

    /// `makeMovie`'s movie, its file, served at /movie.mp4, and a util reading it in `chunkSize` chunks (the
    /// util's default when `nil`). Call `tearDown()` on the environment.
    static func servedMovie(
        chunkSize: Int? = 64 << 10
    ) async throws -> (OriginEnvironment, Data, URL, URL, VideoUtil) {
        let environment = try OriginEnvironment()
        let movie = try await makeMovie(in: environment.directory.url)
        let file = environment.directory.url.appendingPathComponent("movie.mp4")
        let url = environment.serve("/movie.mp4", movie, contentType: "video/mp4")
        let configuration = chunkSize.map { VideoUtil.Configuration(chunkSize: $0) } ?? .init()
        return (environment, movie, file, url, VideoUtil(manager: environment.manager, configuration: configuration))
    }

    /// `file` cut by ffmpeg into an HLS stream of 2 s MPEG-TS segments in `directory/stream`, returned.
    static func cutHLS(_ file: URL, in directory: URL) async throws -> URL {
        let stream = directory.appendingPathComponent("stream", isDirectory: true)
        try FileManager.default.createDirectory(at: stream, withIntermediateDirectories: true)
        let ffmpeg = try #require(ChildProcess.executable("ffmpeg"))
        let cut = try await ChildProcess.run(
            ffmpeg,
            [
                "-v", "error", "-i", file.path, "-c", "copy", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
                stream.appendingPathComponent("index.m3u8").path,
            ],
            timeout: .seconds(300))
        #expect(cut.status == 0, "ffmpeg could not cut the stream: \(cut.output)")
        return stream
    }

    /// `ffmpeg -ss seconds -i file -frames:v 1` as straight RGBA at the file's size.
    static func referenceFrame(of file: URL, at seconds: Double, width: Int, height: Int) async throws -> [UInt8] {
        let ffmpeg = try #require(ChildProcess.executable("ffmpeg"))
        let output = file.deletingLastPathComponent().appendingPathComponent("reference.rgba")
        let made = try await ChildProcess.run(
            ffmpeg,
            [
                "-v", "error", "-y", "-ss", String(seconds), "-i", file.path, "-frames:v", "1", "-f", "rawvideo",
                "-pix_fmt", "rgba", "-vf", "scale=\(width):\(height):flags=area+accurate_rnd", output.path,
            ],
            timeout: .seconds(300))
        #expect(made.status == 0, "ffmpeg could not decode the reference: \(made.output)")
        let pixels = [UInt8](try Data(contentsOf: output))
        #expect(pixels.count == width * height * 4)
        return pixels
    }

    /// The peak signal-to-noise ratio of two RGBA images' colour channels, in dB.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var squared = 0.0
        var count = 0
        for index in 0..<min(a.count, b.count) where index % 4 != 3 {
            let difference = Double(a[index]) - Double(b[index])
            squared += difference * difference
            count += 1
        }
        guard squared > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (squared / Double(count)))
    }

    @Test func aStillIsTheFrameFFmpegShowsAtThatTimeReadThroughTheChunkCache() async throws {
        // Given a 10 s H.264 movie with its moov at the end, on the origin, and a util of 64 KiB chunks
        let (environment, movie, file, url, video) = try await Self.servedMovie()
        defer { environment.tearDown() }

        // When a still at 6.4 s is taken at the movie's size
        let still = try await video.frame(for: url, at: .time(.milliseconds(6400)))

        // Then it is ffmpeg's frame at 6.4 s within the codec's tolerance
        #expect(still.width == 320 && still.height == 240)
        let reference = try await Self.referenceFrame(of: file, at: 6.4, width: 320, height: 240)
        let psnr = Self.psnr(still.pixels, reference)
        #expect(psnr >= 40, "PSNR \(psnr) dB")
        // And the origin sent each block the demuxer read once, and fewer bytes than the movie
        await video.waitForPendingStores()
        let requests = environment.origin.requests(for: "/movie.mp4")
        let ranges = requests.compactMap { $0.headers["range"] }
        let starts = ranges.compactMap { Int($0.dropFirst(6).prefix { $0 != "-" }) }
        #expect(Set(starts).count == starts.count, "\(ranges)")
        let sent = requests.map(\.bodyBytesSent).reduce(0, +)
        #expect(video.statistics.framesDecoded == 1)
        #expect(sent < movie.count, "sent \(sent) of \(movie.count) B in \(ranges)")
        // And the blocks asked are the head, the moov's, and the samples from the keyframe at 6 s to the frame
        // at 6.4 s (plus at most the block after it: the decoder holds a frame back for the B-frames it reorders)
        let layout = try await Self.layout(of: file, keyframeAt: 6, frameAt: 6.4)
        let block = 64 << 10
        let needed = Set(
            [0] + Array(layout.moov.lowerBound / block...(layout.moov.upperBound - 1) / block)
                + Array(layout.samples.lowerBound / block...(layout.samples.upperBound - 1) / block))
        let asked = Set(starts.map { $0 / block })
        let allowed = needed.union([(layout.samples.upperBound - 1) / block + 1])
        #expect(
            needed.isSubset(of: asked) && asked.isSubset(of: allowed),
            "asked \(asked.sorted()), needed \(needed.sorted())")
    }

    /// Where `file`'s moov box is, and the bytes from the video sample of the keyframe at `keyframe` seconds to
    /// the end of the sample shown at `frame` seconds (read off the file's boxes and ffprobe's packet list).
    static func layout(
        of file: URL, keyframeAt keyframe: Double, frameAt frame: Double
    ) async throws -> (moov: Range<Int>, samples: Range<Int>) {
        let data = try Data(contentsOf: file)
        var offset = 0
        var moov = 0..<0
        while offset + 8 <= data.count {
            let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: data[offset + 4..<offset + 8], as: UTF8.self) == "moov" {
                moov = offset..<offset + size
            }
            guard size >= 8 else { break }
            offset += size
        }
        let ffprobe = try #require(ChildProcess.executable("ffprobe"))
        let listed = try await ChildProcess.run(
            ffprobe,
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,pos,size", "-of", "csv=p=0",
                file.path,
            ],
            timeout: .seconds(120))
        let packets: [(time: Double, position: Int, size: Int)] = listed.output.split(separator: "\n").compactMap {
            let fields = $0.split(separator: ",")
            guard fields.count >= 3, let time = Double(fields[0]), let size = Int(fields[1]),
                let position = Int(fields[2])
            else { return nil }
            return (time, position, size)
        }
        let first = try #require(packets.first { abs($0.time - keyframe) < 0.001 })
        let last = try #require(packets.first { abs($0.time - frame) < 0.001 })
        return (moov, first.position..<last.position + last.size)
    }

    @Test func aStyledStillIsStoredAndTheNextAskDecodesNothing() async throws {
        // Given a movie on the origin
        let (environment, _, _, url, video) = try await Self.servedMovie()
        defer { environment.tearDown() }

        // When a circle of 48 px is asked at 3 s, twice, then from a new util over the same manager
        let first = try await video.frame(for: url, at: .time(.seconds(3)), style: AvatarStyle.circle(diameter: 48))
        await video.waitForPendingStores()
        let requests = environment.origin.requestCount(for: "/movie.mp4")
        let second = try await video.frame(for: url, at: .time(.seconds(3)), style: AvatarStyle.circle(diameter: 48))
        let other = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))
        let third = try await other.frame(for: url, at: .time(.seconds(3)), style: AvatarStyle.circle(diameter: 48))

        // Then one frame was decoded, the styled still came back from memory and storage, and nothing more was
        // fetched
        #expect(first.width == 48 && first.height == 48)
        #expect(second.pixels == first.pixels)
        #expect(third.width == 48 && third.height == 48)
        #expect(video.statistics.framesDecoded == 1)
        #expect(other.statistics.framesDecoded == 0)
        #expect(environment.origin.requestCount(for: "/movie.mp4") == requests)
    }

    @Test func theKeyframeOptionGivesTheKeyframeBeforeTheTime() async throws {
        // Given a movie with a keyframe every 2 s
        let (environment, _, file, url, video) = try await Self.servedMovie()
        defer { environment.tearDown() }

        // When the nearest keyframe to 6.4 s is asked
        let still = try await video.frame(
            for: url, at: .time(.milliseconds(6400)), options: .init(exactFrame: false))

        // Then it is the frame at 6 s
        let reference = try await Self.referenceFrame(of: file, at: 6, width: 320, height: 240)
        #expect(Self.psnr(still.pixels, reference) >= 40)
        let exact = try await Self.referenceFrame(of: file, at: 6.4, width: 320, height: 240)
        #expect(Self.psnr(still.pixels, exact) < 40, "the keyframe differs from the frame at 6.4 s")
    }

    @Test func aFractionOfTheDurationIsFoundFromTheContainer() async throws {
        let (environment, _, file, url, video) = try await Self.servedMovie(chunkSize: nil)
        defer { environment.tearDown() }

        // When the frame at 60 % of a 10 s movie is asked, scaled into 160 px
        let still = try await video.frame(for: url, at: .fraction(0.6), options: .init(maxPixelSize: 160))

        // Then it is the frame at 6 s at 160 × 120
        #expect(still.width == 160 && still.height == 120)
        let reference = try await Self.referenceFrame(of: file, at: 6, width: 160, height: 120)
        #expect(Self.psnr(still.pixels, reference) >= 40)
    }

    @Test func withoutFFmpegsLibrariesAStillIsATypedErrorNamingTheDebianPackage() async throws {
        // Given a util whose FFmpeg libraries cannot be found
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/movie.mp4", Data(repeating: 0, count: 1000), contentType: "video/mp4")
        let video = VideoUtil(manager: environment.manager)
        var missing = FFmpegLibrary.Candidate.release(avformatMajor: 59, debianPackage: "libavformat59")
        missing.avformat = "libavformat-hidden-by-a-test.so.59"
        video.frameLibraryOverride.withLock { $0 = FFmpegLibrary.load([missing]) }

        // Then a still is VideoError.decoderMissing naming libavformat59, and nothing was fetched
        await #expect {
            try await video.frame(for: url, at: .time(.zero))
        } throws: { error in
            guard case VideoError.decoderMissing(let library, let package, _) = error else { return false }
            return library == "libavformat-hidden-by-a-test.so.59" && package == "libavformat59"
                && "\(error)".contains("libavformat59")
        }
        #expect(environment.origin.requestCount(for: "/movie.mp4") == 0)
    }

    @Test func aDamagedVideoIsATypedErrorAndItsBytesStayCached() async throws {
        // Given 300 KB of noise served as an MP4
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let url = environment.serve("/noise.mp4", noise, contentType: "video/mp4")
        let video = VideoUtil(manager: environment.manager, configuration: .init(chunkSize: 64 << 10))

        // Then a still is VideoError.frameUnavailable, twice (nothing was stored as a still)
        for _ in 0..<2 {
            await #expect {
                try await video.frame(for: url, at: .time(.seconds(1)))
            } throws: { error in
                guard case VideoError.frameUnavailable(let failed, _) = error else { return false }
                return failed == url
            }
        }
        #expect(video.statistics.framesDecoded == 0)
        // And the chunks it read are cached intact
        await video.waitForPendingStores()
        let head = try await video.data(for: url, range: 0..<1000)
        #expect(head == noise.prefix(1000))
    }

    @Test func limitsAreCheckedBeforeTheWork() async throws {
        let (environment, _, _, url, video) = try await Self.servedMovie()
        defer { environment.tearDown() }

        // A video larger than the pixel limit is refused once its header is read
        await #expect {
            try await video.frame(for: url, at: .time(.seconds(1)), options: .init(maxSourcePixelCount: 320 * 239))
        } throws: { error in
            guard case VideoError.frameLimitExceeded(_, let reason) = error else { return false }
            return reason.contains("320x240")
        }
        // And a read past the byte limit is refused before it is fetched
        let before = environment.origin.requests(for: "/movie.mp4").map(\.bodyBytesSent).reduce(0, +)
        await #expect {
            try await video.frame(for: url, at: .time(.seconds(8)), options: .init(maxBytesRead: 128 << 10))
        } throws: { error in
            guard case VideoError.frameLimitExceeded(_, let reason) = error else { return false }
            return reason.contains("131072")
        }
        await video.waitForPendingStores()
        let after = environment.origin.requests(for: "/movie.mp4").map(\.bodyBytesSent).reduce(0, +)
        #expect(after - before <= 128 << 10)
        #expect(video.statistics.framesDecoded == 0)
    }

    @Test func anHLSStillReadsOnlyTheSegmentThatHoldsTheTime() async throws {
        // Given the movie cut into 2 s MPEG-TS segments by ffmpeg, served as an HLS stream
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        _ = try await Self.makeMovie(in: environment.directory.url)
        let file = environment.directory.url.appendingPathComponent("movie.mp4")
        let stream = try await Self.cutHLS(file, in: environment.directory.url)
        let paths = try environment.origin.registerDirectory(stream, at: "/hls")
        let playlist = environment.origin.url(for: "/hls/index.m3u8")
        let hls = HLSUtil(manager: environment.manager)

        // When a still at 5.2 s is taken
        let still = try await hls.frame(for: AssetRequest(url: playlist), at: .time(.milliseconds(5200)))

        // Then it is ffmpeg's frame at 5.2 s of the movie
        let reference = try await Self.referenceFrame(of: file, at: 5.2, width: 320, height: 240)
        let psnr = Self.psnr(still.pixels, reference)
        #expect(psnr >= 40, "PSNR \(psnr) dB")
        // And only the playlist and the segment from 4 s to 6 s were asked
        let asked = paths.filter { environment.origin.requestCount(for: $0) > 0 }.sorted()
        #expect(asked == ["/hls/index.m3u8", "/hls/index2.ts"], "\(asked)")
    }

    @Test func aStyleThatCannotBeDrawnIsAnAssetProcessingErrorNamingIt() async throws {
        let (environment, _, _, url, video) = try await Self.servedMovie()
        defer { environment.tearDown() }
        struct Refused: Error {}

        // A style whose size cannot be drawn is refused before anything is fetched
        let empty = AvatarStyle.circle(diameter: 0)
        await #expect {
            try await video.frame(for: url, at: .time(.seconds(1)), style: empty)
        } throws: { error in
            (error as? AssetProcessingError)?.processor == empty.identifier
                && (error as? AssetProcessingError)?.url == url
        }
        #expect(environment.origin.requestCount(for: "/movie.mp4") == 0)

        // And a style that fails on the frame is named too, with its own error inside
        let failing = AvatarStyle.freeform(name: "refuses") { _ in throw Refused() }
        await #expect {
            try await video.frame(for: url, at: .time(.seconds(1)), style: failing)
        } throws: { error in
            guard let error = error as? AssetProcessingError else { return false }
            return error.processor == failing.identifier && error.underlying is Refused
        }
        #expect(video.statistics.framesDecoded == 1)
    }
}
