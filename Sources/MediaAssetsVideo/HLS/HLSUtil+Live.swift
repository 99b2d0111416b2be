import Foundation
import MediaAssets

extension HLSUtil {
    /// The media playlist `request` names, then each reload of it, one per target duration, until it
    /// ends (`EXT-X-ENDLIST`) or the consumer stops iterating.
    ///
    /// A reload that lists nothing new waits half a target duration before the next, as RFC 8216
    /// (6.3.4) asks of clients. Nothing is cached here; fetch what the consumer plays with
    /// `data(for:headers:)`, so only what is listed is ever cached.
    public func playlistUpdates(for request: AssetRequest) -> AsyncThrowingStream<HLSMediaPlaylist, Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task { [self] in
                do {
                    var lastSequence: Int?
                    while true {
                        let media = try await mediaPlaylist(for: request)
                        continuation.yield(media)
                        if media.isEndList { break }
                        let newest = media.mediaSequence + media.segments.count
                        let target = Double(media.targetDuration)
                        let seconds = newest == lastSequence ? target / 2 : target
                        lastSequence = newest
                        try await sleep(.milliseconds(Int(seconds * 1_000)))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
