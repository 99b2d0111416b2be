import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of ``URLSessionLoader``'s session: collects each data task's response and body and resumes
/// its caller when the task completes, or passes the body on piece by piece to a streaming caller; refuses
/// every redirect to URLSession, so that the loader follows it (checked) as a hop of its own.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is behind `tasks`, a Mutex.

    /// Who receives a hop's outcome.
    enum Consumer {
        /// `load`: the whole body when the task completes; `url` is the URL the hop stands for.
        case collecting(
            CheckedContinuation<HopOutcome<DataResponse>, Error>, progress: (@Sendable (FetchProgress) -> Void)?,
            url: URL)
        /// `stream`: the head as soon as it arrives (`head` is nil once resumed), then each body piece.
        case streaming(
            head: CheckedContinuation<HopOutcome<ResponseHead>, Error>?,
            body: AsyncThrowingStream<Data, Error>.Continuation, url: URL)

        var url: URL {
            switch self {
            case .collecting(_, _, let url), .streaming(_, _, let url): return url
            }
        }
    }

    /// The most of a declared `Content-Length` reserved before a byte arrives.
    static let initialReservation = 1 << 20
    /// The least number of bytes between two progress reports.
    static let progressInterval: Int64 = 64 << 10

    private struct Transfer {
        var consumer: Consumer
        var response: HTTPURLResponse?
        /// The `Location` of a redirect this hop answered with: its body is dropped, its outcome is the redirect.
        var redirect: String?
        var body = Data()
        var reserved = 0
        var receivedBytes: Int64 = 0
        /// The declared length of an identity-coded body.
        var expectedBytes: Int64?
        var reportedBytes: Int64 = 0
        var progressInterval = SessionDelegate.progressInterval
        var failure: AssetsError?
        let maxResponseSize: Int

        init(consumer: Consumer, maxResponseSize: Int) {
            self.consumer = consumer
            self.maxResponseSize = maxResponseSize
        }

        /// Takes a body chunk: appends it when collecting, counts it when streaming. Marks the transfer
        /// failed (and drops its body) once the body is over the limit.
        mutating func receive(_ data: Data) -> Delivery {
            guard redirect == nil else { return .nothing }
            receivedBytes += Int64(data.count)
            if receivedBytes > Int64(maxResponseSize) {
                failure = .responseTooLarge(url: consumer.url, limit: maxResponseSize)
                body = Data()
                return .tooLarge
            }
            switch consumer {
            case .collecting(_, let progress, _):
                append(data)
                guard let progress, receivedBytes - reportedBytes >= progressInterval else { return .nothing }
                return .progress(progress, takeProgress())
            case .streaming(_, let body, _):
                return .piece(body)
            }
        }

        /// Appends, growing the buffer to at most twice what arrived and never past the declared length: a
        /// `Content-Length` is a claim, and 256 MiB reserved for a body that never comes is memory lost.
        private mutating func append(_ data: Data) {
            let needed = body.count + data.count
            if needed > reserved {
                reserved = SessionDelegate.capacity(toHold: needed, holding: body.count, declared: expectedBytes)
                body.reserveCapacity(reserved)
            }
            body.append(data)
        }

        /// Reserves the start of the declared length when the head arrives.
        mutating func reserveForHead() {
            guard let expectedBytes, expectedBytes > 0, case .collecting = consumer else { return }
            reserved = SessionDelegate.capacity(toHold: 0, holding: 0, declared: expectedBytes)
            body.reserveCapacity(reserved)
            progressInterval = max(SessionDelegate.progressInterval, expectedBytes / 16)
        }

        /// Whether the response arrived with a declared length and every byte of it.
        var isWhole: Bool {
            guard response != nil, redirect == nil, let expectedBytes else { return false }
            return receivedBytes == expectedBytes
        }

        mutating func takeProgress() -> FetchProgress {
            reportedBytes = receivedBytes
            return FetchProgress(receivedBytes: receivedBytes, expectedBytes: expectedBytes)
        }

        /// The error the transfer ends with: its own, else a body cut short of its declared length as
        /// `lengthMismatch` (libcurl reports it as an unknown error or a lost connection), else the session's.
        /// A cancellation that came after every declared byte of a collected body arrived is no error: the
        /// body is whole, and what arrived is not thrown away.
        func outcomeError(_ error: Error?) -> Error? {
            if let failure { return failure }
            guard let error else { return nil }
            if (error as? URLError)?.code == .cancelled, isWhole, case .collecting = consumer { return nil }
            if let code = (error as? URLError)?.code, code == .unknown || code == .networkConnectionLost,
                redirect == nil, let expectedBytes, receivedBytes < expectedBytes
            {
                return AssetsError.lengthMismatch(
                    url: consumer.url, expected: Int(expectedBytes), received: Int(receivedBytes))
            }
            return error
        }
    }

    /// The capacity a body buffer holding `count` bytes grows to when it must hold `needed`: twice what it holds
    /// (at least `initialReservation`), never past the `declared` length, and never less than `needed`.
    static func capacity(toHold needed: Int, holding count: Int, declared: Int64?) -> Int {
        let declared = declared.map { Int(clamping: $0) } ?? .max
        return max(needed, min(max(2 * count, initialReservation), declared))
    }

    /// What to do with a chunk once the lock is released.
    private enum Delivery {
        case nothing
        case progress(@Sendable (FetchProgress) -> Void, FetchProgress)
        case piece(AsyncThrowingStream<Data, Error>.Continuation)
        case tooLarge
    }

    private let tasks = Mutex<[Int: Transfer]>([:])
    /// Where the session delivers callbacks (an OperationQueue holds its underlying queue unowned), and where
    /// tasks are cancelled from.
    let callbackQueue = DispatchQueue(label: "MediaAssets.URLSessionLoader.callbacks")

    func begin(_ task: URLSessionDataTask, consumer: Consumer, maxResponseSize: Int) {
        let transfer = Transfer(consumer: consumer, maxResponseSize: maxResponseSize)
        tasks.withLock { $0[task.taskIdentifier] = transfer }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // The loader follows the redirect itself, once it checked the new URL: URLSession delivers this
        // response as final and the transfer ends with `.redirected`.
        let location = Self.headers(of: response)["location"]
        tasks.withLock { $0[task.taskIdentifier]?.redirect = location }
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        let (tooLarge, head) = tasks.withLock {
            tasks -> (Bool, (CheckedContinuation<HopOutcome<ResponseHead>, Error>, ResponseHead)?) in
            guard var transfer = tasks[dataTask.taskIdentifier], transfer.redirect == nil else { return (false, nil) }
            transfer.response = http
            transfer.expectedBytes = expected
            let limit = transfer.maxResponseSize
            let tooLarge = expected.map { $0 > limit } ?? false
            if tooLarge { transfer.failure = .responseTooLarge(url: transfer.consumer.url, limit: limit) }
            var head: (CheckedContinuation<HopOutcome<ResponseHead>, Error>, ResponseHead)?
            switch transfer.consumer {
            case .collecting:
                if !tooLarge { transfer.reserveForHead() }
            case .streaming(let continuation?, let body, let url) where !tooLarge:
                if let http {
                    head = (
                        continuation,
                        ResponseHead(url: url, statusCode: http.statusCode, headers: Self.headers(of: http))
                    )
                    transfer.consumer = .streaming(head: nil, body: body, url: url)
                }
            case .streaming: break
            }
            tasks[dataTask.taskIdentifier] = transfer
            return (tooLarge, head)
        }
        // URLSession on Linux ignores the disposition: a response refused here is cancelled, not left running.
        completionHandler(tooLarge ? .cancel : .allow)
        if tooLarge { cancel(dataTask) }
        if let (continuation, value) = head { continuation.resume(returning: .answered(value)) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // One lookup per chunk, mutating in place: copying the transfer out would copy the whole
        // body on every append.
        guard let delivery = tasks.withLock({ $0[dataTask.taskIdentifier]?.receive(data) }) else { return }
        switch delivery {
        case .nothing: break
        case .progress(let handler, let progress): handler(progress)
        case .piece(let body): body.yield(data)
        case .tooLarge: cancel(dataTask)
        }
    }

    /// Cancels `task` from the delegate's own queue, never from the caller's thread.
    ///
    /// `URLSessionTask.cancel()` in swift-corelibs-foundation 6.3 waits for the session's work queue
    /// (`workQueue.sync`, made asynchronous in later versions for the deadlock this avoids): called from a task's
    /// cancellation handler, which the Swift runtime runs holding that task's status lock, or from a progress
    /// handler that cancels its own ask, it would block a thread on the session. Every cancellation of the loader
    /// goes through here.
    func cancel(_ task: URLSessionTask) {
        callbackQueue.async { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard var transfer = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let failure = transfer.outcomeError(error)
        let url = transfer.consumer.url
        switch transfer.consumer {
        case .collecting(let continuation, let progress, _):
            if let failure {
                continuation.resume(throwing: failure)
            } else if let location = transfer.redirect {
                continuation.resume(returning: .redirected(location))
            } else if let response = transfer.response {
                if let progress, transfer.receivedBytes > transfer.reportedBytes { progress(transfer.takeProgress()) }
                let headers = Self.headers(of: response)
                continuation.resume(
                    returning: .answered(
                        DataResponse(url: url, statusCode: response.statusCode, headers: headers, data: transfer.body)))
            } else {
                continuation.resume(throwing: URLError(.badServerResponse))
            }
        case .streaming(let head?, let body, _):
            if failure == nil, let location = transfer.redirect {
                head.resume(returning: .redirected(location))
                body.finish()
            } else {
                head.resume(throwing: failure ?? URLError(.badServerResponse))
                body.finish(throwing: failure ?? URLError(.badServerResponse))
            }
        case .streaming(nil, let body, _):
            if let failure { body.finish(throwing: failure) } else { body.finish() }
        }
    }

    private static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in response.allHeaderFields {
            headers[name.lowercased()] = value
        }
        return headers
    }
}
