import CDynamicCodecs
import Foundation

/// Output sink for giflib's write callback.
private final class GIFOutput {
    var data = Data()
}

private let appendToOutput: ma_gif_output_fn = { file, bytes, length in
    guard let file, let bytes, let userData = file.pointee.UserData else { return 0 }
    Unmanaged<GIFOutput>.fromOpaque(userData).takeUnretainedValue().data.append(bytes, count: Int(length))
    return length
}

/// A giflib write step that failed.
package struct GIFWriterFailure: Error, CustomStringConvertible {
    package var step: String
    package var description: String { "giflib failed at \(step)" }
}

/// giflib's EGif API (loaded at run time): writes GIF fixtures for tests and benchmarks.
package struct GIFWriter {
    /// One frame: palette indices in a rectangle, with its graphic control.
    package struct Frame {
        package var left = 0
        package var top = 0
        package var width: Int
        package var height: Int
        /// Palette indices, `width * height`, row-major.
        package var indices: [UInt8]
        package var localPalette: [RGBA]?
        package var disposal = 1
        package var delayHundredths = 10
        package var transparentIndex: Int?
        package var interlaced = false

        /// Creates a frame.
        package init(
            left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8], localPalette: [RGBA]? = nil,
            disposal: Int = 1, delayHundredths: Int = 10, transparentIndex: Int? = nil, interlaced: Bool = false
        ) {
            self.left = left
            self.top = top
            self.width = width
            self.height = height
            self.indices = indices
            self.localPalette = localPalette
            self.disposal = disposal
            self.delayHundredths = delayHundredths
            self.transparentIndex = transparentIndex
            self.interlaced = interlaced
        }
    }

    let open: ma_gif_egif_open_fn
    let close: ma_gif_egif_close_fn
    let setVersion: ma_gif_set_version_fn
    let screenDescription: ma_gif_put_screen_desc_fn
    let imageDescription: ma_gif_put_image_desc_fn
    let line: ma_gif_put_line_fn
    let putExtension: ma_gif_put_extension_fn
    let leader: ma_gif_put_extension_leader_fn
    let block: ma_gif_put_extension_block_fn
    let trailer: ma_gif_put_extension_trailer_fn
    let makeMap: ma_gif_make_map_fn
    let freeMap: ma_gif_free_map_fn

    /// Loads the EGif entry points from the installed giflib.
    package init() throws {
        let library = try GIFLibrary.system.get().library
        open = try library.function("EGifOpen")
        close = try library.function("EGifCloseFile")
        setVersion = try library.function("EGifSetGifVersion")
        screenDescription = try library.function("EGifPutScreenDesc")
        imageDescription = try library.function("EGifPutImageDesc")
        line = try library.function("EGifPutLine")
        putExtension = try library.function("EGifPutExtension")
        leader = try library.function("EGifPutExtensionLeader")
        block = try library.function("EGifPutExtensionBlock")
        trailer = try library.function("EGifPutExtensionTrailer")
        makeMap = try library.function("GifMakeMapObject")
        freeMap = try library.function("GifFreeMapObject")
    }

    /// A GIF89a whose records `body` writes through this writer.
    package func write(_ body: (UnsafeMutablePointer<ma_gif_file>, GIFWriter) throws -> Void) throws -> Data {
        let output = GIFOutput()
        var error: Int32 = 0
        guard let file = open(Unmanaged.passUnretained(output).toOpaque(), appendToOutput, &error) else {
            throw GIFWriterFailure(step: "EGifOpen \(error)")
        }
        setVersion(file, true)
        do {
            try body(file, self)
        } catch {
            _ = close(file, nil)
            throw error
        }
        guard close(file, &error) == MA_GIF_OK else { throw GIFWriterFailure(step: "EGifCloseFile \(error)") }
        return withExtendedLifetime(output) { output.data }
    }

    /// Writes the logical screen descriptor and, when given, the global colour table.
    package func screen(
        _ file: UnsafeMutablePointer<ma_gif_file>, _ width: Int, _ height: Int, _ palette: [RGBA]?
    ) throws {
        try withMap(palette) { map in
            try check(screenDescription(file, Int32(width), Int32(height), 8, 0, map), "screen")
        }
    }

    /// Writes the NETSCAPE2.0 application extension with `loopCount` (0 loops forever).
    package func netscape(_ file: UnsafeMutablePointer<ma_gif_file>, _ loopCount: Int) throws {
        try check(leader(file, 0xFF), "leader")
        try check(block(file, 11, Array("NETSCAPE2.0".utf8)), "NETSCAPE")
        try check(block(file, 3, [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)]), "loop")
        try check(trailer(file), "trailer")
    }

    /// Writes a graphic control extension, an image descriptor and the frame's rows (interlaced if asked).
    package func frame(_ file: UnsafeMutablePointer<ma_gif_file>, _ frame: Frame) throws {
        let transparent = frame.transparentIndex ?? 0
        let packed = UInt8(frame.disposal << 2) | (frame.transparentIndex == nil ? 0 : 1)
        let control: [UInt8] = [
            packed, UInt8(frame.delayHundredths & 0xFF), UInt8(frame.delayHundredths >> 8), UInt8(transparent),
        ]
        try check(putExtension(file, 0xF9, 4, control), "graphics control")
        try withMap(frame.localPalette) { map in
            try check(
                imageDescription(
                    file, Int32(frame.left), Int32(frame.top), Int32(frame.width), Int32(frame.height),
                    frame.interlaced, map
                ), "image description"
            )
        }
        var indices = frame.indices
        let rows: [Int] =
            frame.interlaced
            ? [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { Array(stride(from: $0.0, to: frame.height, by: $0.1)) }
            : Array(0..<frame.height)
        for row in rows {
            try indices.withUnsafeMutableBufferPointer { buffer in
                try check(line(file, buffer.baseAddress! + row * frame.width, Int32(frame.width)), "line \(row)")
            }
        }
    }

    private func withMap(_ palette: [RGBA]?, _ body: (UnsafeMutablePointer<ma_gif_color_map>?) throws -> Void) throws {
        guard let palette else { return try body(nil) }
        var size = 2
        while size < palette.count { size *= 2 }
        var colors = palette.map { ma_gif_color(Red: $0.red, Green: $0.green, Blue: $0.blue) }
        colors += Array(repeating: ma_gif_color(Red: 0, Green: 0, Blue: 0), count: size - palette.count)
        guard let map = makeMap(Int32(size), colors) else { throw GIFWriterFailure(step: "GifMakeMapObject") }
        defer { freeMap(map) }
        try body(map)
    }

    func check(_ status: Int32, _ step: String) throws {
        guard status == MA_GIF_OK else { throw GIFWriterFailure(step: step) }
    }
}

/// A GIF colour table as opaque RGBA.
struct GIFPalette {
    let colors: [RGBA]

    /// The table giflib read, or `nil` when the file has none there.
    init?(_ map: UnsafeMutablePointer<ma_gif_color_map>?) {
        guard let map, let entries = map.pointee.Colors, map.pointee.ColorCount > 0 else { return nil }
        let count = min(256, Int(map.pointee.ColorCount))
        colors = (0..<count).map { RGBA(red: entries[$0].Red, green: entries[$0].Green, blue: entries[$0].Blue) }
    }

    private init(colors: [RGBA]) { self.colors = colors }

    /// The table of a frame that has neither a local nor a global one (GIF89a allows it; the spec leaves the
    /// colours to the decoder): index n is the grey (n, n, n), as if the frame were greyscale.
    ///
    /// Browsers disagree (Chromium's Wuffs paints every index black, Firefox every index white), so no choice
    /// matches them all; a grey ramp keeps distinct indices distinct, and its first entry is the spec's
    /// suggested black.
    static let greyscale = GIFPalette(colors: (0...255).map { RGBA(red: UInt8($0), green: UInt8($0), blue: UInt8($0)) })
}

extension GIFWriter {
    /// A looping GIF of `frameCount` frames, each covering the whole `side`×`side` canvas with diagonal bands
    /// of 16 colours moved one pixel further per frame (40 ms each): every frame differs and every pixel is
    /// drawn, yet the file stays small. The fixture of the frame-window tests, memory probe and benchmarks.
    package func bands(side: Int, frameCount: Int) throws -> Data {
        let palette = (0..<16).map { (step: Int) -> RGBA in
            RGBA(red: UInt8(step * 17), green: UInt8(255 - step * 17), blue: UInt8(step * 8))
        }
        // Row y of frame f is `pattern[(y + f)...]`: one line of indices serves every row of every frame.
        var pattern = (0..<(2 * side + frameCount)).map { UInt8($0 / 8 % 16) }
        return try write { file, put in
            try put.screen(file, side, side, palette)
            try put.netscape(file, 0)
            for frame in 0..<frameCount {
                let control: [UInt8] = [0b0000_0100, 4, 0, 0]  // keep, 4 hundredths, no transparency
                try check(putExtension(file, 0xF9, 4, control), "graphics control")
                try check(imageDescription(file, 0, 0, Int32(side), Int32(side), false, nil), "image description")
                try pattern.withUnsafeMutableBufferPointer { line in
                    for row in 0..<side {
                        try check(self.line(file, line.baseAddress! + row + frame, Int32(side)), "line \(row)")
                    }
                }
            }
        }
    }
}
