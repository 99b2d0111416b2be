import Foundation

/// A response's `Vary` header (RFC 9111 §4.1): which request headers chose the representation.
///
/// A stored response may answer a later request only when the headers it names match. The manager's cache
/// key holds a request's explicit headers (``AssetRequest/keyedHeaders``), and the headers a loader adds by
/// itself are the same on every request, so a response is stored when every header it varies on is one of
/// those; it is not stored when it varies on a header the key leaves out (a credential, or any header of a
/// request with an explicit key), nor ever for `Vary: *`.
enum HTTPVary: Equatable {
    /// No `Vary`, or one that names nothing.
    case none
    /// `Vary: *`: the representation depends on more than the request's headers; never stored.
    case any
    /// The request headers named, lowercased.
    case headers(Set<String>)

    /// The value of a `Vary` header, if any.
    init(header: String?) {
        guard let header else {
            self = .none
            return
        }
        var names = Set<String>()
        for name in header.split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            if trimmed == "*" {
                self = .any
                return
            }
            if !trimmed.isEmpty { names.insert(trimmed) }
        }
        self = names.isEmpty ? .none : .headers(names)
    }

    /// Whether a response with this `Vary` may be stored under the key of `request`: the key (or the loader's
    /// fixed headers) must determine every header it names.
    ///
    /// `Accept-Encoding` never matters: the loader undoes a content coding before anything is stored.
    func allowsStoring(for request: AssetRequest) -> Bool {
        switch self {
        case .none: return true
        case .any: return false
        case .headers(let names):
            let keyed = request.key == nil ? Set(request.keyedHeaders.map(\.name)) : []
            for name in names where name != "accept-encoding" {
                let isSent = request.headers.keys.contains { $0.lowercased() == name }
                if isSent && !keyed.contains(name) { return false }
            }
            return true
        }
    }
}
