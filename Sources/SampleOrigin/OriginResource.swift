import Foundation

/// A registered resource: its bytes and the validators the origin answers with.
struct OriginResource: Sendable {
    var data: Data
    var contentType: String
    var cacheControl: String?
    /// Whole seconds, as HTTP dates carry no fraction.
    var lastModified: Date
    /// A strong ETag; a new one is made whenever the bytes are replaced.
    var etag: String
}
