import CDynamicCodecs
import Foundation

/// The bytes giflib pulls through its input callback. It keeps the `Data` itself, not a pointer into it, so a
/// reader may stay open across calls (a frame window decodes one frame per call).
private final class GIFByteSource {
    let data: Data
    var offset = 0

    init(data: Data) { self.data = data }
}

/// giflib's input callback: copies up to `length` bytes from the `GIFByteSource` in `UserData`.
private let readFromSource: ma_gif_input_fn = { file, buffer, length in
    guard let file, let buffer, length > 0, let userData = file.pointee.UserData else { return 0 }
    let source = Unmanaged<GIFByteSource>.fromOpaque(userData).takeUnretainedValue()
    let count = min(Int(length), source.data.count - source.offset)
    guard count > 0 else { return 0 }
    let start = source.data.startIndex + source.offset
    source.data.copyBytes(to: buffer, from: start..<start + count)
    source.offset += count
    return Int32(count)
}

/// Graphic control of the next frame (GIF89a extension 0xF9).
struct GIFFrameControl {
    var disposal: GIFCanvas.Disposal = .keep
    var delayHundredths = 0
    var transparentIndex: Int?

    /// Browsers show delays of 0 and 10 ms for 100 ms.
    var duration: Duration { delayHundredths <= 1 ? .milliseconds(100) : .milliseconds(delayHundredths * 10) }
}

/// One frame's image descriptor: where it lies, its local colour table, whether its rows are interlaced.
struct GIFFrameDescriptor {
    var rectangle: GIFCanvas.Rectangle
    var localPalette: GIFPalette?
    var interlaced: Bool
}

/// An open giflib record reader over a GIF's bytes (`DGifSlurp` is never used: it reads every frame into memory
/// before any limit can be checked). Walks records one at a time: extensions fill a frame's control, an image
/// descriptor hands the frame to the caller, who reads its rows or skips its data.
final class GIFFile {
    private let library: GIFLibrary
    private let source: GIFByteSource
    private let handle: UnsafeMutablePointer<ma_gif_file>

    /// Opens `data` and reads the logical screen descriptor (and the global colour table).
    ///
    /// - Throws: `ImageError.truncated` or `.corrupt` with giflib's reason.
    init(_ data: Data, library: GIFLibrary) throws {
        self.library = library
        source = GIFByteSource(data: data)
        var openError: Int32 = 0
        guard let handle = library.open(Unmanaged.passUnretained(source).toOpaque(), readFromSource, &openError)
        else { throw Self.error(code: openError, library: library) }
        self.handle = handle
    }

    deinit {
        var closeError: Int32 = 0
        _ = library.close(handle, &closeError)
    }

    /// The logical screen (canvas) size.
    var canvasSize: PixelSize { PixelSize(width: Int(handle.pointee.SWidth), height: Int(handle.pointee.SHeight)) }

    /// The global colour table, if the file has one.
    var globalPalette: GIFPalette? { GIFPalette(handle.pointee.SColorMap) }

    /// Reads records up to the next image descriptor, filling `control` from a graphic control extension and
    /// `loopCount` from a NETSCAPE2.0 one on the way; `nil` at the trailer. The caller then reads the frame's
    /// rows (`readRows`) or skips them (`skipImageData`).
    func nextFrame(control: inout GIFFrameControl, loopCount: inout Int) throws -> GIFFrameDescriptor? {
        while true {
            var record: Int32 = 0
            try check(library.recordType(handle, &record))
            switch record {
            case MA_GIF_RECORD_IMAGE:
                try check(library.imageDescription(handle))
                let description = handle.pointee.Image
                return GIFFrameDescriptor(
                    rectangle: GIFCanvas.Rectangle(
                        left: Int(description.Left), top: Int(description.Top),
                        width: Int(description.Width), height: Int(description.Height)
                    ),
                    localPalette: GIFPalette(description.ColorMap), interlaced: description.Interlace
                )
            case MA_GIF_RECORD_EXTENSION:
                try readExtension(control: &control, loopCount: &loopCount)
            case MA_GIF_RECORD_TERMINATE:
                return nil
            default:
                throw ImageError.corrupt(format: .gif, reason: "unknown record type \(record)")
            }
        }
    }

    /// Reads the frame's rows one at a time into a single line buffer (interlaced rows in file order) and hands
    /// each to `body` with its row number, so memory stays O(width) whatever the frame claims; a frame without
    /// pixels has its data skipped. The frame's pixel count is bounded like an image's.
    func readRows(
        _ frame: GIFFrameDescriptor, maxPixelCount: Int, _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void
    ) throws {
        let rectangle = frame.rectangle
        let (pixelCount, overflow) = rectangle.width.multipliedReportingOverflow(by: rectangle.height)
        if overflow || pixelCount > maxPixelCount {
            throw ImageError.tooManyPixels(width: rectangle.width, height: rectangle.height, limit: maxPixelCount)
        }
        guard pixelCount > 0 else { return try skipImageData() }
        let passes = frame.interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        var line = [UInt8](repeating: 0, count: rectangle.width)
        try line.withUnsafeMutableBufferPointer { buffer in
            for (start, step) in passes {
                for row in stride(from: start, to: rectangle.height, by: step) {
                    try check(library.line(handle, buffer.baseAddress, Int32(rectangle.width)))
                    body(row, UnsafeBufferPointer(buffer))
                }
            }
        }
    }

    /// Skips the frame's compressed data without decompressing it (the header scan, frames past a limit,
    /// frames without pixels).
    func skipImageData() throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<UInt8>?
        try check(library.codeFirst(handle, &codeSize, &block))
        while block != nil { try check(library.codeNext(handle, &block)) }
    }

    /// Reads one extension: graphic control (disposal, delay, transparency) and NETSCAPE2.0 (loop count: n
    /// repeats are n + 1 plays, 0 is forever). An extension with no sub-blocks (which `DGifSlurp` refuses) is
    /// valid and skipped.
    private func readExtension(control: inout GIFFrameControl, loopCount: inout Int) throws {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<UInt8>?
        try check(library.extensionFirst(handle, &code, &block))
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
            try check(library.extensionNext(handle, &block))
            if isNetscape, let subBlock = block, subBlock[0] >= 3, subBlock[1] == 1 {
                let count = Int(subBlock[2]) | Int(subBlock[3]) << 8
                loopCount = count == 0 ? 0 : count + 1
            }
        }
    }

    private func check(_ status: Int32) throws {
        guard status == MA_GIF_OK else { throw Self.error(code: handle.pointee.Error, library: library) }
    }

    /// D_GIF_ERR_READ_FAILED (102) and D_GIF_ERR_EOF_TOO_SOON (113) mean the bytes ran out.
    private static func error(code: Int32, library: GIFLibrary) -> ImageError {
        let reason = library.message(code)
        switch code {
        case 102, 113: return .truncated(format: .gif, reason: reason)
        case 109: return .outOfMemory(format: .gif, reason: reason)
        default: return .corrupt(format: .gif, reason: reason)
        }
    }
}
