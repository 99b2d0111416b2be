import Foundation
@_spi(Fuzzing) import MediaAssets
@_spi(Fuzzing) import MediaAssetsAnimation
@_spi(Fuzzing) import MediaAssetsEncryption
@_spi(Fuzzing) import MediaAssetsImage
@_spi(Fuzzing) import MediaAssetsRedis
@_spi(Fuzzing) import MediaAssetsVideo
@_spi(Fuzzing) import MediaAssetsVideoProxy
import SampleOrigin

/// Every fuzz target. A new parser's entry point (`fuzz<Name>(_ data: Data)` or its public API)
/// gets one entry here, a `Targets/<name>/Entry.swift` and its name in Package.swift.
public enum FuzzTargets {
    /// All targets, in the order `Fuzz/run` runs them.
    public static let all: [FuzzTarget] = [
        jpeg, jpegIncremental, png, lottie, dotLottie, dotLottieVersion2, webp, gif, heif, thumbHash, hlsPlaylist,
        httpRequestHead, proxyPath, respReply, diskEntryFile, animationFrames, sealedEntry, downloadIndex,
        entityTag, httpHeaders, fetchPolicy, videoFrame,
    ]

    /// The target named `name`, if any.
    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// A pixel limit that keeps one input's decode small (the limit check itself is under test).
    static let decodingOptions = ImageDecodingOptions(maxPixelCount: 1 << 22)

    /// libjpeg-turbo through `ImageDecoder`: header, full decode, a DCT-scaled decode (scan-limited when
    /// progressive: the walk to EOI and the filtered source) and region decodes (`jpeg_crop_scanline`,
    /// `jpeg_skip_scanlines`).
    public static let jpeg = FuzzTarget(name: "jpeg", seeds: ImageSeeds.jpeg) { data in
        guard ImageFormat.sniff(data) == .jpeg else { return }
        decodeImage(data, scaledTo: PixelSize(width: 7, height: 5))
        fuzzJPEGRegionDecoder(data)
    }

    /// libjpeg-turbo's buffered-image mode behind progressive previews: the input fed in pieces through the
    /// suspending source, previews, and the final render.
    public static let jpegIncremental = FuzzTarget(
        name: "jpeg-incremental", seeds: ImageSeeds.jpeg, parse: fuzzJPEGIncrementalDecoder)

    /// libpng through `ImageDecoder`: header, full decode, and row-by-row decodes at display size.
    public static let png = FuzzTarget(name: "png", seeds: ImageSeeds.png) { data in
        guard ImageFormat.sniff(data) == .png else { return }
        decodeImage(data, scaledTo: nil)
        fuzzDisplaySizeDecoding(data)
    }

    /// The Lottie JSON parser and validator.
    public static let lottie = FuzzTarget(name: "lottie", seeds: AnimationSeeds.lottie) { data in
        _ = try? LottieDocument.parse(data)
    }

    /// The zip reader, manifest parser and per-animation parsing of dotLottie archives.
    public static let dotLottie = FuzzTarget(name: "dotlottie", seeds: AnimationSeeds.dotLottie) { data in
        _ = try? DotLottie.read(data)
    }

    /// The dotLottie v2 theme, state machine and manifest parsers, picked by the input's first byte.
    public static let dotLottieVersion2 = FuzzTarget(
        name: "dotlottie-v2", seeds: AnimationSeeds.dotLottieVersion2, parse: fuzzDotLottieVersion2
    )

    /// libwebp and libwebpdemux (loaded at run time): header, still decode, animation, and libwebp's scaled
    /// and cropped decoding.
    public static let webp = FuzzTarget(name: "webp", seeds: FormatSeeds.webp) { data in
        fuzzWebPDecoder(data)
        fuzzDisplaySizeDecoding(data)
    }

    /// giflib (loaded at run time): header, first frame, every frame.
    public static let gif = FuzzTarget(name: "gif", seeds: FormatSeeds.gif, parse: fuzzGIFDecoder)

    /// libheif (loaded at run time): HEIC and AVIF header, primary image, and display-size decodes (thumbnail
    /// choice, the box walk that finds a cut file, reduction from the decoded plane).
    public static let heif = FuzzTarget(name: "heif", seeds: FormatSeeds.heif) { data in
        fuzzHEIFDecoder(data)
        fuzzDisplaySizeDecoding(data)
    }

    /// The ThumbHash reader and renderer behind `ImagePlaceholder`.
    public static let thumbHash = FuzzTarget(name: "thumbhash", seeds: FormatSeeds.thumbHash, parse: fuzzThumbHash)

    /// The HLS master and media playlist parser.
    public static let hlsPlaylist = FuzzTarget(
        name: "hls-playlist", seeds: ProtocolSeeds.hlsPlaylist, parse: fuzzHLSPlaylist)

    /// The video downloads' index parser and its record checks (file names that must stay in their directory).
    public static let downloadIndex = FuzzTarget(
        name: "download-index", seeds: ProtocolSeeds.downloadIndex, parse: fuzzVideoDownloadIndex)

    /// The request-head and `Range` parser of the HTTP/1.1 core (`MediaAssetsHTTPServer`), which the video
    /// proxy and `SampleOrigin` run on.
    public static let httpRequestHead = FuzzTarget(
        name: "http-request-head", seeds: ProtocolSeeds.httpRequestHead, parse: fuzzHTTPRequestHead)

    /// The response-header readers the manager caches and retries by: HTTP dates, Cache-Control, Expires
    /// against Date and Age, Vary, Retry-After.
    public static let httpHeaders = FuzzTarget(
        name: "http-headers", seeds: ProtocolSeeds.httpHeaders, parse: fuzzHTTPHeaders)

    /// The fetch policy's readers without lookups: URLs checked by name, numeric hosts classified, redirect
    /// Locations followed (loops, limits), address ranges.
    public static let fetchPolicy = FuzzTarget(
        name: "fetch-policy", seeds: ProtocolSeeds.fetchPolicy, parse: fuzzFetchPolicy)

    /// Video stills: FFmpeg's demuxers and decoders reading through the package's I/O context and C glue
    /// (seeds: the kept corpus of tiny MP4, MPEG-TS and WebM files; a no-op without FFmpeg's libraries).
    public static let videoFrame = FuzzTarget(name: "video-frame", seeds: { [:] }, parse: fuzzVideoFrame)

    /// The video proxy's URL-path parser (base64url origin token and byte range).
    public static let proxyPath = FuzzTarget(
        name: "proxy-path", seeds: ProtocolSeeds.proxyPath, parse: fuzzVideoProxyPath)

    /// The entity-tag parsers of `If-None-Match` and `If-Match` (`EntityTag`, `EntityTagCondition`).
    public static let entityTag = FuzzTarget(name: "entity-tag", seeds: ProtocolSeeds.entityTag, parse: fuzzEntityTag)

    /// The RESP reply parser (whole and split in two) and the Redis entry decoder.
    public static let respReply = FuzzTarget(name: "resp-reply", seeds: ProtocolSeeds.respReply, parse: fuzzRESPReply)

    /// The disk cache's entry-file header decoder and checksum check, its index snapshot reader and
    /// its pins-file reader.
    public static let diskEntryFile = FuzzTarget(
        name: "disk-entry-file", seeds: ProtocolSeeds.diskEntryFile
    ) { data in
        fuzzDiskEntryFile(data)
        fuzzIndexSnapshot(data)
        fuzzDiskPinsFile(data)
    }

    /// The animation header scan (`ImageCodecRegistry.animationInfo(of:)`: GIF's blocks walked to the trailer,
    /// WebP's container demuxed) and the frame reader behind `AnimationFrames`: up to 24 frames reduced to 7×5,
    /// then frames by index backwards (rewinds), for GIF and WebP (other formats are one still frame).
    public static let animationFrames = FuzzTarget(
        name: "animation-frames", seeds: FormatSeeds.animation, parse: readAnimationFrames
    )

    /// What `animationFrames` runs on one input.
    public static func readAnimationFrames(_ data: Data) {
        guard [.gif, .webp].contains(ImageFormat.sniff(data)) else { return }
        _ = try? ImageCodecRegistry.standard.animationInfo(of: data)
        var options = decodingOptions
        options.targetSize = PixelSize(width: 7, height: 5)
        fuzzAnimationFrameReader(data, options: options)
    }

    /// The encrypted backend's reading path: the clear header, AES-256-GCM opening and the sealed
    /// metadata decoder.
    public static let sealedEntry = FuzzTarget(
        name: "sealed-entry", seeds: ProtocolSeeds.sealedEntry, parse: fuzzSealedEntry)

    /// Reads the header, decodes, and decodes again scaled to `targetSize` (JPEG's DCT scaling) if given.
    static func decodeImage(_ data: Data, scaledTo targetSize: PixelSize?) {
        _ = try? ImageCodecRegistry.standard.header(of: data)
        _ = try? ImageCodecRegistry.standard.decode(data, options: decodingOptions)
        guard let targetSize else { return }
        var scaled = decodingOptions
        scaled.targetSize = targetSize
        _ = try? ImageCodecRegistry.standard.decode(data, options: scaled)
    }
}
