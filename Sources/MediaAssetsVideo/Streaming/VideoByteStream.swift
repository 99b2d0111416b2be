import Foundation
import Synchronization

/// The bytes of a range of a video, in order, produced one window at a time as the consumer takes them.
///
/// Nothing is fetched until iteration starts. The producer reads the next window (8 MiB by
/// default, `VideoUtil.Configuration.windowSize`) only once the consumer has taken the previous
/// one, so a slow consumer holds at most two windows in memory. Ending the iteration early or
/// cancelling the consuming task cancels the fetches no other reader needs.
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
        var window: [Data] = []
        var position = 0

        /// The next piece, or `nil` at the end.
        public mutating func next() async throws -> Data? {
            if position == window.count {
                let consumer = consumer
                let next = try await withTaskCancellationHandler {
                    try await consumer.channel.nextWindow()
                } onCancel: {
                    consumer.cancel()
                }
                guard let next else { return nil }
                window = next
                position = 0
                if window.isEmpty { return try await self.next() }
            }
            let piece = window[position]
            window[position] = Data()  // released as soon as it is handed out
            position += 1
            consumer.channel.taken(piece.count)
            return piece
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
