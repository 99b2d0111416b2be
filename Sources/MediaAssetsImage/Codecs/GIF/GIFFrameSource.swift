import Foundation

/// GIF frames in order, composited as browsers do on one canvas held at full size (see `GIFCanvas`): what a
/// frame window and a whole decode read.
final class GIFFrameSource: AnimationFrameSource {
    let info: AnimationInfo
    private let data: Data
    private let library: GIFLibrary
    private let maxPixelCount: Int
    private var file: GIFFile
    private var canvas: GIFCanvas

    /// Opens `data`, whose scan said `info`, after checking the canvas against `options.maxPixelCount`.
    init(_ data: Data, info: AnimationInfo, library: GIFLibrary, options: ImageDecodingOptions) throws {
        try info.checkCanvas(within: options)
        self.info = info
        self.data = data
        self.library = library
        maxPixelCount = options.maxPixelCount
        file = try GIFFile(data, library: library)
        canvas = GIFCanvas(size: info.canvas)
    }

    func nextFrame() throws -> (image: Image, duration: Duration)? {
        var control = GIFFrameControl()
        var loopCount = info.loopCount
        guard let frame = try file.nextFrame(control: &control, loopCount: &loopCount) else { return nil }
        // A frame with neither table is drawn with a default palette, as Pillow and browsers do.
        let palette = frame.localPalette ?? file.globalPalette ?? .greyscale
        canvas.beginFrame(in: frame.rectangle, disposal: control.disposal)
        let transparentIndex = control.transparentIndex
        try file.readRows(frame, maxPixelCount: maxPixelCount) { row, line in
            canvas.drawRow(row, line, in: frame.rectangle, palette: palette, transparentIndex: transparentIndex)
        }
        AnimationFrameCounter.count()
        return (canvas.image, control.duration)
    }

    func rewind() throws {
        file = try GIFFile(data, library: library)
        canvas = GIFCanvas(size: info.canvas)
    }
}
