import Foundation
import MediaAssets
import Synchronization

@testable import MediaAssetsImage

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A test-only format with previews: "TPRV", width and height (one byte each), padding to 64 bytes, then
/// RGBA rows. Its incremental decoder previews the rows complete so far, never the whole image (the final
/// decode makes that).
struct PreviewFormatDecoder: ImageDecoding {
    static let headerSize = 64
    var identifier: String { "test-preview" }

    static func encode(_ image: Image) -> Data {
        var data = Data("TPRV".utf8) + [UInt8(image.width), UInt8(image.height)]
        data.append(Data(count: headerSize - data.count))
        data.append(contentsOf: image.pixels)
        return data
    }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Data("TPRV".utf8)) }

    func header(of data: Data) throws -> ImageHeader {
        guard data.count >= Self.headerSize else { throw ImageError.truncated(format: .png, reason: "short header") }
        let bytes = [UInt8](data.prefix(6))
        return ImageHeader(
            format: .png, width: Int(bytes[4]), height: Int(bytes[5]), orientation: .identity, hasAlpha: true)
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let header = try header(of: data)
        let length = header.width * header.height * 4
        guard data.count == Self.headerSize + length else {
            throw ImageError.truncated(format: .png, reason: "\(data.count) of \(Self.headerSize + length) bytes")
        }
        return Image(width: header.width, height: header.height, pixels: [UInt8](data.dropFirst(Self.headerSize)))
    }

    func decodeAnimation(_ data: Data, options: ImageDecodingOptions) throws -> AnimatedImage {
        AnimatedImage(still: try decode(data, options: options))
    }

    var decodesRegions: Bool { false }

    func makeIncrementalDecoder(options: ImageDecodingOptions) -> (any IncrementalImageDecoding)? {
        RowPreviewDecoder()
    }
}

/// Previews the complete rows of a `PreviewFormatDecoder` image, the rest transparent.
final class RowPreviewDecoder: IncrementalImageDecoding {
    private var received = Data()
    private var rowsShown = 0

    func append(_ data: Data) throws -> Image? {
        received.append(data)
        guard received.count >= PreviewFormatDecoder.headerSize else { return nil }
        let header = try PreviewFormatDecoder().header(of: received)
        let rowBytes = header.width * 4
        let rows = min(header.height, (received.count - PreviewFormatDecoder.headerSize) / rowBytes)
        guard rows > rowsShown, rows < header.height else { return nil }
        rowsShown = rows
        var pixels = [UInt8](repeating: 0, count: header.width * header.height * 4)
        let shown = received.dropFirst(PreviewFormatDecoder.headerSize).prefix(rows * rowBytes)
        pixels.replaceSubrange(0..<shown.count, with: shown)
        return Image(width: header.width, height: header.height, pixels: pixels)
    }
}

/// A loader whose one streamed body the test sends piece by piece.
final class PieceByPieceLoader: DataLoading {
    private let pieces: AsyncThrowingStream<Data, Error>
    private let sink: AsyncThrowingStream<Data, Error>.Continuation
    private let declaredLength: Int
    private let streams = Mutex(0)

    init(declaredLength: Int) {
        (pieces, sink) = AsyncThrowingStream.makeStream(of: Data.self)
        self.declaredLength = declaredLength
    }

    /// Bodies streamed so far.
    var streamCount: Int { streams.withLock { $0 } }

    func send(_ piece: Data) { sink.yield(piece) }
    func end() { sink.finish() }

    func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse {
        let response = try await stream(request)
        let data = try await response.body.collect()
        return DataResponse(url: response.head.url, statusCode: 200, headers: response.head.headers, data: data)
    }

    func stream(_ request: URLRequest) async throws -> StreamedResponse {
        streams.withLock { $0 += 1 }
        return StreamedResponse(
            head: ResponseHead(
                url: request.url!, statusCode: 200, headers: ["Content-Length": String(declaredLength)]),
            body: ResponseBody(pieces))
    }
}

/// What an `ImageTask`'s previews delivered, read by a task of its own.
final class PreviewCollector: Sendable {
    private let images = Mutex<[Image]>([])
    private let finished = Mutex(false)

    /// Starts reading `task.previews`.
    static func reading(_ task: ImageTask) -> PreviewCollector {
        let collector = PreviewCollector()
        Task { [previews = task.previews] in
            for await preview in previews { collector.images.withLock { $0.append(preview) } }
            collector.finished.withLock { $0 = true }
        }
        return collector
    }

    var received: [Image] { images.withLock { $0 } }
    var isFinished: Bool { finished.withLock { $0 } }
}
