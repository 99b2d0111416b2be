import Dispatch
import Foundation
import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `DataLoading` that reads file:// URLs from disk and hands every other URL to another loader.
///
/// On Linux, URLSession does not load file:// URLs; this loader answers them the way a small
/// HTTP server would, so the manager, the utils and their caches work unchanged on local files:
/// 200 with `Content-Length`, `Content-Type` (from the extension), `ETag` and `Last-Modified`;
/// `Range` (206, or 416 when unsatisfiable), `If-Range`, `If-None-Match` (304); 404 for a missing
/// file. Plug it in with `AssetsManager.Configuration(loader:)`.
public final class LocalFileLoader: DataLoading {
    /// The loader for every URL that is not a file URL (a `URLSessionLoader` by default).
    public let next: any DataLoading
    /// The most bytes one response may have, as `URLSessionLoader.maxResponseSize`.
    public let maxResponseSize: Int

    private let queue = DispatchQueue(label: "ExampleSupport.LocalFileLoader", attributes: .concurrent)

    /// Creates a loader that reads files itself and sends other requests to `next`.
    public init(next: any DataLoading = URLSessionLoader(), maxResponseSize: Int = 256 << 20) {
        self.next = next
        self.maxResponseSize = maxResponseSize
    }

    /// Reads a file URL from disk (off the caller's executor), or loads any other URL with `next`.
    public func load(
        _ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?
    ) async throws -> DataResponse {
        guard let url = request.url, url.isFileURL else { return try await next.load(request, progress: progress) }
        try Task.checkCancellation()
        let limit = maxResponseSize
        let response = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try Self.respond(to: request, url: url, limit: limit) })
            }
        }
        let count = Int64(response.data.count)
        progress?(FetchProgress(receivedBytes: count, expectedBytes: count))
        return response
    }

    // MARK: Answering

    private static func respond(to request: URLRequest, url: URL, limit: Int) throws -> DataResponse {
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue
        else {
            return DataResponse(url: url, statusCode: 404, headers: ["Content-Length": "0"], data: Data())
        }
        let modified = (attributes[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
        let etag = "\"\(size)-\(Int(modified.timeIntervalSince1970))\""
        let lastModified = httpDate(modified)
        var headers = [
            "ETag": etag, "Last-Modified": lastModified, "Accept-Ranges": "bytes",
            "Content-Type": contentType(forExtension: url.pathExtension),
        ]
        if request.value(forHTTPHeaderField: "If-None-Match") == etag {
            headers["Content-Length"] = "0"
            return DataResponse(url: url, statusCode: 304, headers: headers, data: Data())
        }
        var bytes = 0..<size
        var statusCode = 200
        // An If-Range that no longer matches asks for the whole (changed) file.
        let ifRange = request.value(forHTTPHeaderField: "If-Range")
        if let rangeHeader = request.value(forHTTPHeaderField: "Range"),
            ifRange == nil || ifRange == etag
                || ifRange == lastModified
        {
            switch FileByteRange(header: rangeHeader, length: size) {
            case .satisfiable(let range):
                bytes = range
                statusCode = 206
                headers["Content-Range"] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
            case .unsatisfiable:
                headers["Content-Range"] = "bytes */\(size)"
                headers["Content-Length"] = "0"
                return DataResponse(url: url, statusCode: 416, headers: headers, data: Data())
            case .ignored:
                break
            }
        }
        guard bytes.count <= limit else { throw AssetsError.responseTooLarge(url: url, limit: limit) }
        let body = request.httpMethod == "HEAD" ? Data() : try read(bytes, from: url)
        headers["Content-Length"] = String(request.httpMethod == "HEAD" ? bytes.count : body.count)
        return DataResponse(url: url, statusCode: statusCode, headers: headers, data: body)
    }

    private static func read(_ bytes: Range<Int>, from url: URL) throws -> Data {
        guard !bytes.isEmpty else { return Data() }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(bytes.lowerBound))
        return try handle.read(upToCount: bytes.count) ?? Data()
    }

    /// The media type for a file extension; unknown extensions are plain bytes.
    static func contentType(forExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "json": return "application/json"
        case "lottie": return "application/zip"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "mp4", "m4v": return "video/mp4"
        case "mov": return "video/quicktime"
        default: return "application/octet-stream"
        }
    }

    /// An HTTP date (RFC 9110 IMF-fixdate) such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
