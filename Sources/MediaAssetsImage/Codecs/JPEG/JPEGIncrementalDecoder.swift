import CJPEG
import Foundation

/// Previews of a progressive JPEG while its bytes arrive, through libjpeg-turbo's buffered-image mode.
///
/// Each appended piece is entropy-decoded once into libjpeg's coefficient buffer (so n pieces cost about one
/// decode), and only the bytes libjpeg has not consumed are kept. When a scan completes that changes what the
/// output shows (at the DCT scale `targetSize × downsamplingHeadroom` needs, a scan refining only coefficients
/// the reduced inverse DCT never reads changes nothing), the next `append(_:)` returns a preview: an output
/// pass at that scale, cut to the region of interest and turned upright, the geometry of the final decode.
/// The scans completed with the EOI marker give no preview: the final image is decoded from the whole body (or
/// rendered by `decodeFinalImage()`, which costs only the output pass).
///
/// A baseline (sequential) JPEG gives no previews and, once its header shows it, costs nothing more. The pixel
/// limit is checked against the header before libjpeg allocates its coefficient buffer (about 2 bytes a
/// pixel for a 4:2:0 file). Corrupt input throws `ImageError`; after that the decoder stays failed.
final class JPEGIncrementalDecoder: IncrementalImageDecoding {
    private enum State {
        case readingHeader
        case scanning(plan: JPEGRegionPlan, storedSize: PixelSize)
        case sequential
        case finished(plan: JPEGRegionPlan, storedSize: PixelSize, lastScan: Int32)
    }

    private let handle: JPEGDecoderHandle
    private let options: ImageDecodingOptions
    private var state = State.readingHeader
    private var lastPreviewScan: Int32 = 0

    init(options: ImageDecodingOptions) throws {
        handle = try JPEGDecoderHandle()
        self.options = options
    }

    deinit {
        handle.close()
    }

    /// The appended bytes libjpeg has not consumed yet: all the decoder keeps of the body.
    var bufferedByteCount: Int { cjpeg_buffered_bytes(handle.pointer) }

    func append(_ data: Data) throws -> Image? {
        switch state {
        case .sequential, .finished: return nil
        case .readingHeader, .scanning: break
        }
        try data.withUnsafeBytes { bytes in
            try handle.check(cjpeg_append(handle.pointer, ImageDecoder.firstByte(of: bytes), bytes.count))
        }
        if case .readingHeader = state, try !start() { return nil }
        guard case .scanning(let plan, let storedSize) = state else { return nil }
        var usefulScan: Int32 = 0
        var complete: Int32 = 0
        try handle.check(cjpeg_consume(handle.pointer, &usefulScan, &complete))
        if complete != 0 {
            state = .finished(plan: plan, storedSize: storedSize, lastScan: usefulScan)
            return nil
        }
        guard usefulScan > lastPreviewScan else { return nil }
        lastPreviewScan = usefulScan
        return try render(scan: usefulScan, plan: plan, storedSize: storedSize)
    }

    /// The image every scan makes, once the EOI marker arrived: an output pass over libjpeg's coefficient
    /// buffer, with no entropy decoding left to do; `nil` before. It equals a normal decode with these options
    /// (up to libjpeg's upsampling at the edges of a region, which a normal decode cuts before upsampling).
    func decodeFinalImage() throws -> Image? {
        guard case .finished(let plan, let storedSize, let lastScan) = state, lastScan > 0 else { return nil }
        return try render(scan: lastScan, plan: plan, storedSize: storedSize)
    }

    /// Reads the header once it has arrived, checks the limits and starts buffered-image decoding; `false`
    /// while more bytes are needed or when the file is not progressive.
    private func start() throws -> Bool {
        var raw = cjpeg_header()
        let status = cjpeg_read_header_incremental(handle.pointer, &raw)
        if status == CJPEG_SUSPENDED { return false }
        try handle.check(status)
        let header = JPEGDecoderHandle.header(raw)
        try ImageDecoder.checkPixelLimit(of: header, options: options)
        guard raw.progressive != 0 else {
            state = .sequential
            return false
        }
        let plan = JPEGRegionPlan(
            orientation: options.appliesOrientation ? header.orientation : .identity,
            region: options.regionOfInterest
        )
        let storedSize = try handle.start(scaleNumerator: try handle.scale(for: options, plan: plan))
        state = .scanning(plan: plan, storedSize: storedSize)
        return true
    }

    private func render(scan: Int32, plan: JPEGRegionPlan, storedSize: PixelSize) throws -> Image {
        let rect = plan.storedRect(storedSize: storedSize)
        let byteCount = rect.width * rect.height * 4
        let pixels = try [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initializedCount in
            try handle.check(
                cjpeg_render_scan(
                    handle.pointer, scan, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height),
                    buffer.baseAddress, rect.width * 4, byteCount
                )
            )
            initializedCount = byteCount
        }
        let image = Image(width: rect.width, height: rect.height, pixels: pixels)
        return OrientationTransform.apply(plan.orientation, to: image)
    }
}
