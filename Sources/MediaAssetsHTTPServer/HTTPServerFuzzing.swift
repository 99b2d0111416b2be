import Foundation

/// Feeds arbitrary bytes to the request-head parser the server uses (and the `Range` resolution): it
/// must return a head or reject it, never crash. The libFuzzer entry point of the parser (see `Fuzz/`).
@_spi(Fuzzing) public func fuzzHTTPRequestHead(_ data: Data) {
    var buffer = RequestHeadBuffer(maximumHeadSize: 64 << 10, maximumBodySize: 1 << 20)
    buffer.append([UInt8](data)[...])
    for _ in 0..<4 {
        guard case .request(let request) = buffer.next() else { break }
        _ = request.byteRange(forLength: data.count)
        _ = request.wantsKeepAlive
    }
    _ = HTTPRangeRequest(header: String(decoding: data.prefix(256), as: UTF8.self), length: data.count)
}
