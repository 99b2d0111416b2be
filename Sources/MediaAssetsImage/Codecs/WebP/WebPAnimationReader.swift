import CDynamicCodecs
import Foundation

/// Reads an animated WebP through libwebpdemux: the demuxer's canvas and frame count are checked against the
/// limits first, then `WebPAnimDecoder` composites each frame (blending, disposal) into premultiplied RGBA.
struct WebPAnimationReader {
    let library: WebPDemuxLibrary
    let decoder: WebPDecoder

    func read(_ data: Data, options: ImageDecodingOptions, frameLimit: Int) throws -> AnimatedImage {
        try data.withUnsafeBytes { bytes in
            var webpData = ma_webp_data(bytes: ImageDecoder.firstByte(of: bytes), size: bytes.count)
            let (canvas, frameCount, loopCount) = try demuxedLayout(&webpData)
            let header = ImageHeader(
                format: .webp, width: canvas.width, height: canvas.height, orientation: .identity, hasAlpha: true
            )
            try ImageDecoder.checkPixelLimit(of: header, options: options)
            let decodedCount = min(frameCount, frameLimit)
            try ImageDecoder.checkAnimationLimits(
                format: .webp, frameCount: decodedCount, canvas: canvas, options: options
            )
            var decoderOptions = ma_webp_anim_decoder_options()
            guard library.optionsInit(&decoderOptions, MA_WEBP_DEMUX_ABI_VERSION) != 0 else {
                throw ImageError.libraryMissing(
                    format: .webp, library: "libwebpdemux.so.2", debianPackage: "libwebpdemux2",
                    reason: "its ABI is incompatible with version 0x0107"
                )
            }
            decoderOptions.color_mode = MA_WEBP_MODE_PREMULTIPLIED_RGBA
            decoderOptions.use_threads = 0
            guard let animationDecoder = library.decoderNew(&webpData, &decoderOptions, MA_WEBP_DEMUX_ABI_VERSION)
            else { throw decoder.failure(data, reason: "libwebpdemux could not start decoding the animation") }
            defer { library.decoderDelete(animationDecoder) }
            var frames: [AnimatedImage.Frame] = []
            frames.reserveCapacity(decodedCount)
            var previousTimestamp: Int32 = 0
            let byteCount = canvas.width * canvas.height * 4
            while frames.count < decodedCount {
                var pixels: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard library.getNext(animationDecoder, &pixels, &timestamp) != 0, let pixels else {
                    throw decoder.failure(data, reason: "frame \(frames.count + 1) of \(frameCount) did not decode")
                }
                let image = Image(
                    width: canvas.width, height: canvas.height,
                    pixels: Array(UnsafeBufferPointer(start: pixels, count: byteCount))
                )
                let duration = Duration.milliseconds(Int(timestamp) - Int(previousTimestamp))
                frames.append(AnimatedImage.Frame(image: image, duration: max(duration, .zero)))
                previousTimestamp = timestamp
            }
            return AnimatedImage(frames: frames, loopCount: loopCount)
        }
    }

    /// Canvas, frame count and loop count from the demuxer, before any frame is decoded.
    private func demuxedLayout(_ webpData: inout ma_webp_data) throws -> (PixelSize, Int, Int) {
        guard let demuxer = library.demux(&webpData, 0, nil, MA_WEBP_DEMUX_ABI_VERSION) else {
            let data = Data(bytes: webpData.bytes, count: webpData.size)
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
        return (canvas, frameCount, loopCount)
    }
}
