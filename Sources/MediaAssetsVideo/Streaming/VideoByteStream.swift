import Foundation
import Synchronization

/// The bytes of a range of a video, in order, as they come: from a download, the cache or the network.
///
/// Nothing is fetched until iteration starts. Bytes are handed on as they arrive; the producer starts a
/// window (`VideoUtil.Configuration.readAhead`, one chunk by default) only once the consumer has taken
/// everything it was given, so it never fetches more than the read-ahead beyond the consumer's position,
/// and a slow consumer holds at most that in memory. Ending the iteration
/// early or cancelling the consuming task cancels the fetches no other reader needs.
public struct VideoByteStream: AsyncSequence, Sendable {
    public typealias Element = Data

    let makeChannel: @Sendable () -> (WindowChannel, Task<Void, Never>)

    public func makeAsyncIterator() -> Iterator {
        let (channel, producer) = makeChannel()
        return Iterator(consumer: Consumer(channel: channel, producer: producer))
    }

    /// Takes the stream's pieces in order.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: Consumer

        /// The next piece, or `nil` at the end.
        public mutating func next() async throws -> Data? {
            let consumer = consumer
            return try await withTaskCancellationHandler {
                try await consumer.channel.next()
            } onCancel: {
                consumer.cancel()
            }
        }
    }

    /// Owns the producer for the iterator: when the iterator goes away, the producer is cancelled.
    final class Consumer: Sendable {
        let channel: WindowChannel
        let producer: Task<Void, Never>

        init(channel: WindowChannel, producer: Task<Void, Never>) {
            self.channel = channel
            self.producer = producer
        }

        func cancel() {
            channel.close()
            producer.cancel()
        }

        deinit { cancel() }
    }
}
