import Foundation
import MediaAssets
import SampleOrigin

/// The examples' embedded origin: a `SampleOrigin` on loopback serving `SampleMedia`.
///
/// The origin listens on a new port every run, so cache keys drop the port (`keyFactory`):
/// `http://127.0.0.1:<port>/avatars/user-07.jpg` is keyed `sample-origin:/avatars/user-07.jpg`,
/// and a second run finds what the first one cached.
public final class SampleHost: Sendable {
    /// The running origin (its request log counts what reached the network).
    public let origin: SampleOrigin
    /// What it serves.
    public let media: SampleMedia

    /// Registers every file of `media` (fresh for a week, fixed Last-Modified) and starts the origin.
    ///
    /// - Throws: `SampleOriginError` if the origin cannot listen.
    public static func start(_ media: SampleMedia) throws -> SampleHost {
        let origin = SampleOrigin()
        let published = Date(timeIntervalSince1970: 1_767_225_600)
        for file in media.allFiles {
            origin.register(
                file.path, data: file.data, contentType: file.contentType, cacheControl: "max-age=604800",
                lastModified: published
            )
        }
        try origin.start()
        return SampleHost(origin: origin, media: media)
    }

    private init(origin: SampleOrigin, media: SampleMedia) {
        self.origin = origin
        self.media = media
    }

    /// The URL of `path` on the origin.
    public func url(for path: String) -> URL { origin.url(for: path) }

    /// The URL of a user's portrait.
    public func url(for avatar: SampleAvatar) -> URL { origin.url(for: avatar.file.path) }

    /// Requests the origin has answered so far (every path).
    public var requestCount: Int { origin.totalRequestCount }

    /// Cache keys without this run's port, so they are the same on every run; other URLs keep
    /// their absolute form.
    public var keyFactory: CacheKeyFactory {
        let port = origin.port
        return CacheKeyFactory { url in
            guard url.host == "127.0.0.1", url.port == port,
                let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
            else { return url.absoluteString }
            let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
            return "sample-origin:" + components.percentEncodedPath + query
        }
    }

    /// Stops the origin.
    public func stop() { origin.stop() }
}
