import Foundation
import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serves Range requests from bytes in memory, answering those not starting at byte 0 with a fault a
/// real origin in the test target cannot produce.
struct FaultyRangeLoader: DataLoading {
    enum Fault: Sendable {
        /// A 206 whose `Content-Range` is one byte later than asked (the body is the asked bytes).
        case shiftedContentRange
        /// A 206 whose `Content-Range` gives another total length.
        case otherTotal
        /// A 206 with the right `Content-Range` but half the body (and no `Content-Length`).
        case shortBody
    }

    let data: Data
    let fault: Fault

    func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse {
        let url = request.url ?? URL(fileURLWithPath: "/")
        let spec = request.value(forHTTPHeaderField: "Range")?.dropFirst("bytes=".count) ?? ""
        let bounds = spec.split(separator: "-").compactMap { Int($0) }
        guard bounds.count == 2 else {
            return DataResponse(url: url, statusCode: 200, headers: ["Content-Length": "\(data.count)"], data: data)
        }
        let range = bounds[0]..<min(bounds[1] + 1, data.count)
        var body = Data(data[range])
        var contentRange = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(data.count)"
        var headers = ["ETag": "\"fixed\"", "Content-Type": "video/mp4"]
        if range.lowerBound > 0 {
            switch fault {
            case .shiftedContentRange:
                contentRange = "bytes \(range.lowerBound + 1)-\(range.upperBound)/\(data.count)"
            case .otherTotal:
                contentRange = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(data.count + 1)"
            case .shortBody:
                body = Data(body.prefix(body.count / 2))
            }
        }
        headers["Content-Range"] = contentRange
        if fault != .shortBody || range.lowerBound == 0 { headers["Content-Length"] = "\(body.count)" }
        return DataResponse(url: url, statusCode: 206, headers: headers, data: body)
    }
}
