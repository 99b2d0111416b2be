import Foundation
import MediaAssetsHTTPServer
import MediaAssetsVideo

/// What a proxy URL stands for: `/<kind>/<token>/<file name>`, the token a base64url of the origin URL
/// (and byte range), the file name the origin's, with an extension players recognise.
struct ProxyTarget: Sendable, Hashable {
    enum Kind: String, Sendable {
        /// A progressive file, served by `Range` from the chunk cache.
        case progressive = "p"
        /// An HLS playlist, rewritten to proxy URLs.
        case playlist = "h"
        /// A segment, init section or key, served from the segment cache.
        case resource = "s"
    }

    var kind: Kind
    var origin: URL
    var byteRange: Range<Int>?

    /// The proxy path of this target.
    var path: String {
        var token = origin.absoluteString
        if let byteRange { token = "\(byteRange.lowerBound)-\(byteRange.upperBound)|" + token }
        let encoded = Data(token.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "/\(kind.rawValue)/\(encoded)/\(fileName)"
    }

    /// The origin's file name, with the extension of its format when it has none players know.
    private var fileName: String {
        let name = origin.lastPathComponent.isEmpty ? "index" : origin.lastPathComponent
        let safe = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? "file"
        switch kind {
        case .playlist: return origin.pathExtension.lowercased() == "m3u8" ? safe : safe + ".m3u8"
        case .progressive: return safe
        case .resource:
            let ext = HLSResource(uri: origin).fileExtension
            return origin.pathExtension.lowercased() == ext ? safe : safe + "." + ext
        }
    }

    /// Parses a proxy path; `nil` for anything else.
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, let kind = Kind(rawValue: String(parts[1])),
            parts[2].count <= 16_384
        else { return nil }
        var base64 = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let token = String(data: data, encoding: .utf8) else {
            return nil
        }
        var urlText = token[...]
        var byteRange: Range<Int>?
        if let bar = token.firstIndex(of: "|") {
            let bounds = token[..<bar].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let lower = Int(bounds[0]), let upper = Int(bounds[1]), lower >= 0, upper > lower
            else { return nil }
            byteRange = lower..<upper
            urlText = token[token.index(after: bar)...]
        }
        guard let origin = URL(string: String(urlText)), let scheme = origin.scheme?.lowercased(),
            scheme == "http" || scheme == "https", origin.host != nil
        else { return nil }
        self.init(kind: kind, origin: origin, byteRange: byteRange)
    }

    init(kind: Kind, origin: URL, byteRange: Range<Int>? = nil) {
        self.kind = kind
        self.origin = origin
        self.byteRange = byteRange
    }
}

/// Feeds arbitrary bytes, as a request path, to the proxy's URL parser: it must return a target or
/// `nil`, never crash. The libFuzzer entry point of the parser (see `Fuzz/`).
@_spi(Fuzzing) public func fuzzVideoProxyPath(_ data: Data) {
    _ = ProxyTarget(path: String(decoding: data, as: UTF8.self))
}

/// Feeds arbitrary bytes to the request-head parser of the HTTP/1.1 core the proxy runs on (and its `Range`
/// resolution): it must return a head or reject it, never crash. The libFuzzer entry point of the parser
/// (see `Fuzz/`).
@_spi(Fuzzing) public func fuzzHTTPRequestHead(_ data: Data) {
    parseHTTPRequestHeadForFuzzing(data)
}
