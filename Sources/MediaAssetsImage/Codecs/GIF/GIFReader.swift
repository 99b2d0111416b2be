import CDynamicCodecs
import Foundation

/// The bytes giflib pulls through its input callback.
private final class GIFByteSource {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
}

/// giflib's input callback: copies up to `length` bytes from the `GIFByteSource` in `UserData`.
private let readFromSource: ma_gif_input_fn = { file, buffer, length in
    guard let file, let buffer, length > 0, let userData = file.pointee.UserData else { return 0 }
    let source = Unmanaged<GIFByteSource>.fromOpaque(userData).takeUnretainedValue()
    let count = min(Int(length), source.bytes.count - source.offset)
    guard count > 0, let base = source.bytes.baseAddress else { return 0 }
    UnsafeMutableRawPointer(buffer).copyMemory(from: base + source.offset, byteCount: count)
    source.offset += count
    return Int32(count)
}

/// Walks a GIF record by record (screen, extensions, images, trailer), checking the limits before each frame's
/// pixels are allocated, and composites every frame on a `GIFCanvas`.
struct GIFReader {
    let library: GIFLibrary

    /// Graphic control of the next frame (GIF89a extension 0xF9).
    private struct FrameControl {
        var disposal: GIFCanvas.Disposal = .keep
        var delayHundredths = 0
        var transparentIndex: Int?

        /// Browsers show delays of 0 and 10 ms for 100 ms.
        var duration: Duration { delayHundredths <= 1 ? .milliseconds(100) : .milliseconds(delayHundredths * 10) }
    }

    func canvasSize(_ data: Data) throws -> PixelSize {
        try withFile(data) { file in PixelSize(width: Int(file.pointee.SWidth), height: Int(file.pointee.SHeight)) }
    }

    func read(_ data: Data, options: ImageDecodingOptions, frameLimit: Int) throws -> AnimatedImage {
        try withFile(data) { file in
            let canvasSize = PixelSize(width: Int(file.pointee.SWidth), height: Int(file.pointee.SHeight))
            try ImageDecoder.checkPixelLimit(
                of: ImageHeader(
                    format: .gif, width: canvasSize.width, height: canvasSize.height, orientation: .identity,
                    hasAlpha: true
                ),
                options: options
            )
            let globalPalette = GIFPalette(file.pointee.SColorMap)
            var canvas = GIFCanvas(size: canvasSize)
            var frames: [AnimatedImage.Frame] = []
            var control = FrameControl()
            var loopCount = 1
            while true {
                var record: Int32 = 0
                try check(library.recordType(file, &record), file)
                switch record {
                case MA_GIF_RECORD_IMAGE:
                    try check(library.imageDescription(file), file)
                    // Past the frames asked for, only check the file is whole: skip the data without decoding.
                    if frames.count >= frameLimit {
                        try skipImageData(file)
                        continue
                    }
                    try ImageDecoder.checkAnimationLimits(
                        format: .gif, frameCount: frames.count + 1, canvas: canvasSize, options: options
                    )
                    let description = file.pointee.Image
                    guard let palette = GIFPalette(description.ColorMap) ?? globalPalette else {
                        throw ImageError.corrupt(format: .gif, reason: "frame \(frames.count + 1) has no colour table")
                    }
                    let rectangle = GIFCanvas.Rectangle(
                        left: Int(description.Left), top: Int(description.Top),
                        width: Int(description.Width), height: Int(description.Height)
                    )
                    canvas.beginFrame(in: rectangle, disposal: control.disposal)
                    let transparentIndex = control.transparentIndex
                    try readRows(file, rectangle, interlaced: description.Interlace, options: options) { row, line in
                        canvas.drawRow(row, line, in: rectangle, palette: palette, transparentIndex: transparentIndex)
                    }
                    frames.append(AnimatedImage.Frame(image: canvas.image, duration: control.duration))
                    control = FrameControl()
                case MA_GIF_RECORD_EXTENSION:
                    try readExtension(file, control: &control, loopCount: &loopCount)
                case MA_GIF_RECORD_TERMINATE:
                    guard !frames.isEmpty else {
                        throw ImageError.corrupt(format: .gif, reason: "the file has no frames")
                    }
                    return AnimatedImage(frames: frames, loopCount: loopCount)
                default:
                    throw ImageError.corrupt(format: .gif, reason: "unknown record type \(record)")
                }
            }
        }
    }

    /// Reads the frame's rows one at a time into a single line buffer (interlaced rows in file order) and hands
    /// each to `body` with its row number, so memory stays O(width) whatever the frame claims; a frame without
    /// pixels has its data skipped. The frame's pixel count is bounded like an image's.
    private func readRows(
        _ file: UnsafeMutablePointer<ma_gif_file>, _ rectangle: GIFCanvas.Rectangle, interlaced: Bool,
        options: ImageDecodingOptions, _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void
    ) throws {
        let (pixelCount, overflow) = rectangle.width.multipliedReportingOverflow(by: rectangle.height)
        if overflow || pixelCount > options.maxPixelCount {
            throw ImageError.tooManyPixels(
                width: rectangle.width, height: rectangle.height, limit: options.maxPixelCount
            )
        }
        guard pixelCount > 0 else { return try skipImageData(file) }
        let passes = interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        var line = [UInt8](repeating: 0, count: rectangle.width)
        try line.withUnsafeMutableBufferPointer { buffer in
            for (start, step) in passes {
                for row in stride(from: start, to: rectangle.height, by: step) {
                    try check(library.line(file, buffer.baseAddress, Int32(rectangle.width)), file)
                    body(row, UnsafeBufferPointer(buffer))
                }
            }
        }
    }

    /// Skips the compressed data of a frame without pixels (zero width or height).
    private func skipImageData(_ file: UnsafeMutablePointer<ma_gif_file>) throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<UInt8>?
        try check(library.codeFirst(file, &codeSize, &block), file)
        while block != nil { try check(library.codeNext(file, &block), file) }
    }

    /// Reads one extension: graphic control (disposal, delay, transparency) and NETSCAPE2.0 (loop count).
    /// An extension with no sub-blocks (which `DGifSlurp` refuses) is valid and skipped.
    private func readExtension(
        _ file: UnsafeMutablePointer<ma_gif_file>, control: inout FrameControl, loopCount: inout Int
    ) throws {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<UInt8>?
        try check(library.extensionFirst(file, &code, &block), file)
        if code == 0xF9, let block {
            var graphics = ma_gif_graphics_control()
            if library.graphicsControl(Int(block[0]), block + 1, &graphics) == MA_GIF_OK {
                control.disposal = GIFCanvas.Disposal(rawValue: Int(graphics.DisposalMode)) ?? .keep
                control.delayHundredths = Int(graphics.DelayTime)
                control.transparentIndex = graphics.TransparentColor >= 0 ? Int(graphics.TransparentColor) : nil
            }
        }
        let isNetscape =
            code == 0xFF
            && block.map {
                Int($0[0]) == 11 && Array(UnsafeBufferPointer(start: $0 + 1, count: 11)) == Array("NETSCAPE2.0".utf8)
            } ?? false
        while block != nil {
            try check(library.extensionNext(file, &block), file)
            if isNetscape, let subBlock = block, subBlock[0] >= 3, subBlock[1] == 1 {
                let count = Int(subBlock[2]) | Int(subBlock[3]) << 8
                loopCount = count == 0 ? 0 : count + 1
            }
        }
    }

    private func withFile<Result>(
        _ data: Data, _ body: (UnsafeMutablePointer<ma_gif_file>) throws -> Result
    ) throws -> Result {
        try data.withUnsafeBytes { bytes in
            let source = GIFByteSource(bytes: bytes)
            return try withExtendedLifetime(source) {
                var openError: Int32 = 0
                guard let file = library.open(Unmanaged.passUnretained(source).toOpaque(), readFromSource, &openError)
                else { throw error(code: openError) }
                defer {
                    var closeError: Int32 = 0
                    _ = library.close(file, &closeError)
                }
                return try body(file)
            }
        }
    }

    private func check(_ status: Int32, _ file: UnsafeMutablePointer<ma_gif_file>) throws {
        guard status == MA_GIF_OK else { throw error(code: file.pointee.Error) }
    }

    /// D_GIF_ERR_READ_FAILED (102) and D_GIF_ERR_EOF_TOO_SOON (113) mean the bytes ran out.
    private func error(code: Int32) -> ImageError {
        let reason = library.message(code)
        switch code {
        case 102, 113: return .truncated(format: .gif, reason: reason)
        case 109: return .outOfMemory(format: .gif, reason: reason)
        default: return .corrupt(format: .gif, reason: reason)
        }
    }
}
