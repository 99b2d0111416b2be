import CDynamicCodecs
import Foundation

/// Reads an animated WebP through libwebpdemux: the demuxer's canvas, frame count and loop count come first
/// (`animationInfo`), so limits are checked before `WebPAnimDecoder` composites any frame (blending, disposal)
/// into premultiplied RGBA.
struct WebPAnimationReader {
    let library: WebPDemuxLibrary
    let decoder: WebPDecoder

    /// Decodes up to `frameLimit` frames, each reduced toward `options.targetSize` as it is made (one frame, the
    /// first, is what a still decode of an animated WebP shows; its region of interest then sets the size).
    func read(_ data: Data, options: ImageDecodingOptions, frameLimit: Int) throws -> AnimatedImage {
        let info = try animationInfo(data)
        let source = try makeFrameSource(data, info: info, options: options)
        guard frameLimit == 1 else { return try AnimatedImage(decoding: source, options) }
        guard let (canvas, duration) = try source.nextFrame() else {
            throw decoder.failure(data, reason: "frame 1 of \(info.frameCount) did not decode")
        }
        let size = AnimationFrameScaling.frameSize(
            canvas: info.canvas, target: options.targetSize, region: options.regionOfInterest
        )
        let frame = AnimatedImage.Frame(image: AnimationFrameScaling.scaled(canvas, to: size), duration: duration)
        return AnimatedImage(frames: [frame], loopCount: info.loopCount)
    }

    /// Canvas, frame count and loop count from the demuxer, before any frame is decoded; a container cut short
    /// is refused here.
    func animationInfo(_ data: Data) throws -> AnimationInfo {
        try data.withUnsafeBytes { bytes in
            var webpData = ma_webp_data(bytes: ImageDecoder.firstByte(of: bytes), size: bytes.count)
            guard let demuxer = library.demux(&webpData, 0, nil, MA_WEBP_DEMUX_ABI_VERSION) else {
                throw decoder.failure(data, reason: "libwebpdemux rejected the container")
            }
            defer { library.demuxDelete(demuxer) }
            let canvas = PixelSize(
                width: Int(library.demuxGet(demuxer, MA_WEBP_FF_CANVAS_WIDTH)),
                height: Int(library.demuxGet(demuxer, MA_WEBP_FF_CANVAS_HEIGHT))
            )
            let frameCount = Int(library.demuxGet(demuxer, MA_WEBP_FF_FRAME_COUNT))
            let loopCount = Int(library.demuxGet(demuxer, MA_WEBP_FF_LOOP_COUNT))
            guard canvas.width > 0, canvas.height > 0, frameCount > 0 else {
                throw ImageError.invalidDimensions(format: .webp, width: canvas.width, height: canvas.height)
            }
            return AnimationInfo(format: .webp, canvas: canvas, frameCount: frameCount, loopCount: loopCount)
        }
    }

    /// Whether the file's `VP8X` header sets the animation flag (what libwebp's `has_animation` reports).
    static func isAnimation(_ data: Data) -> Bool {
        guard data.count > 20 else { return false }
        let start = data.startIndex
        return data[start + 12..<start + 16].elementsEqual("VP8X".utf8) && data[start + 20] & 0x02 != 0
    }

    /// A source of the frames of `data`, whose demuxer said `info`.
    func makeFrameSource(_ data: Data, info: AnimationInfo, options: ImageDecodingOptions) throws -> WebPFrameSource {
        try WebPFrameSource(data, info: info, library: library, decoder: decoder, options: options)
    }
}

/// Animated WebP frames in order from libwebpdemux's `WebPAnimDecoder`, which composites them (blending,
/// disposal) on two canvases of its own; each frame is copied into one canvas buffer of ours, reused.
///
/// The decoder keeps pointers into the file's bytes for its whole life, so the source holds a copy of them at
/// a stable address.
final class WebPFrameSource: AnimationFrameSource {
    let info: AnimationInfo
    private let library: WebPDemuxLibrary
    private let decoder: WebPDecoder
    private let bytes: UnsafeMutableRawBufferPointer
    private var animationDecoder: UnsafeMutableRawPointer
    private var canvas: [UInt8]
    private var previousTimestamp: Int32 = 0
    private var decodedCount = 0

    init(
        _ data: Data, info: AnimationInfo, library: WebPDemuxLibrary, decoder: WebPDecoder,
        options: ImageDecodingOptions
    ) throws {
        try info.checkCanvas(within: options)
        self.info = info
        self.library = library
        self.decoder = decoder
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.copyBytes(to: bytes)
        self.bytes = bytes
        do {
            animationDecoder = try Self.makeDecoder(bytes, count: data.count, library: library, decoder: decoder)
        } catch {
            bytes.deallocate()
            throw error
        }
        canvas = [UInt8](repeating: 0, count: info.canvas.width * info.canvas.height * 4)
    }

    deinit {
        library.decoderDelete(animationDecoder)
        bytes.deallocate()
    }

    func nextFrame() throws -> (image: Image, duration: Duration)? {
        guard decodedCount < info.frameCount else { return nil }
        var pixels: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard library.getNext(animationDecoder, &pixels, &timestamp) != 0, let pixels else {
            // The demuxer read the whole container before this source was made: a frame that fails is corrupt.
            throw ImageError.corrupt(
                format: .webp, reason: "frame \(decodedCount + 1) of \(info.frameCount) did not decode"
            )
        }
        canvas.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress?.update(from: pixels, count: buffer.count)
        }
        let duration = max(Duration.milliseconds(Int(timestamp) - Int(previousTimestamp)), .zero)
        previousTimestamp = timestamp
        decodedCount += 1
        AnimationFrameCounter.count()
        return (Image(width: info.canvas.width, height: info.canvas.height, pixels: canvas), duration)
    }

    func rewind() throws {
        let fresh = try Self.makeDecoder(bytes, count: bytes.count, library: library, decoder: decoder)
        library.decoderDelete(animationDecoder)
        animationDecoder = fresh
        previousTimestamp = 0
        decodedCount = 0
    }

    private static func makeDecoder(
        _ bytes: UnsafeMutableRawBufferPointer, count: Int, library: WebPDemuxLibrary, decoder: WebPDecoder
    ) throws -> UnsafeMutableRawPointer {
        var options = ma_webp_anim_decoder_options()
        guard library.optionsInit(&options, MA_WEBP_DEMUX_ABI_VERSION) != 0 else {
            throw ImageError.libraryMissing(
                format: .webp, library: "libwebpdemux.so.2", debianPackage: "libwebpdemux2",
                reason: "its ABI is incompatible with version 0x0107"
            )
        }
        options.color_mode = MA_WEBP_MODE_PREMULTIPLIED_RGBA
        options.use_threads = 0
        var webpData = ma_webp_data(
            bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: count
        )
        guard let animationDecoder = library.decoderNew(&webpData, &options, MA_WEBP_DEMUX_ABI_VERSION) else {
            throw ImageError.corrupt(format: .webp, reason: "libwebpdemux could not start decoding the animation")
        }
        return animationDecoder
    }
}

extension WebPDecoder: AnimationFrameSourceMaking {
    func animationInfo(of data: Data) throws -> AnimationInfo {
        let header = try header(of: data)
        guard WebPAnimationReader.isAnimation(data) else {
            return AnimationInfo(format: .webp, canvas: header.storedSize, frameCount: 1, loopCount: 0)
        }
        return try WebPAnimationReader(library: animation.get(), decoder: self).animationInfo(data)
    }

    func makeFrameSource(
        _ data: Data, info: AnimationInfo, options: ImageDecodingOptions
    ) throws -> any AnimationFrameSource {
        guard WebPAnimationReader.isAnimation(data) else {
            return StillFrameSource(info: info) { try decode(data, options: options) }
        }
        return try WebPAnimationReader(library: animation.get(), decoder: self).makeFrameSource(
            data, info: info, options: options
        )
    }
}
