import Foundation
import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension VideoDownloads {
    /// The most bytes written to a download's file at once: progress (and the bytes on disk a restart
    /// resumes from) never lags what arrived by more than this.
    static let writeSize = 64 << 10

    /// Where a progressive download stands between two requests.
    private struct ProgressiveProgress {
        var info: VideoContentInfo?
        var offset: Int
        /// Times the resource changed and the download started over.
        var restarts = 0
    }

    /// Fetches a progressive file by `Range` requests of `rangeSize` bytes into its file, from the bytes
    /// already there; a changed resource starts over, a failed request is retried from where it stopped.
    func downloadProgressive(_ id: String) async throws {
        guard let record = state.withLock({ $0._record(id) }) else { return }
        let url = record.url
        let fileURL = store.file(record.fileName, of: id)
        let file = try await store.run { try MediaFile(url: fileURL) }
        var progress = ProgressiveProgress(info: record.info, offset: try await store.run { try file.size() })
        // Bytes the record cannot vouch for (no validators yet, or more than the resource) are dropped.
        if progress.info == nil || progress.offset > progress.info?.length ?? 0 {
            try await store.run { try file.truncate(to: 0) }
            progress.offset = 0
        }
        resetUsage(id, bytes: progress.offset)
        var failedAttempts = 0
        while progress.info.map({ progress.offset < $0.length }) ?? true {
            try Task.checkCancellation()
            if let info = progress.info { try reserve(info.length - progress.offset, for: id, url: url) }
            let before = (progress.offset, progress.restarts)
            do {
                try await fetchNextRange(id, record: record, file: file, progress: &progress)
                if progress.offset > before.0 || progress.restarts > before.1 {
                    failedAttempts = 0
                } else {
                    // An answer that brought nothing (a length that lies low): as good as a failure.
                    failedAttempts += 1
                    guard failedAttempts < configuration.maximumAttempts else {
                        throw VideoDownloadError.unexpectedResponse(
                            url: url, reason: "\(failedAttempts) answers for bytes \(progress.offset)- brought no byte")
                    }
                }
            } catch let error where Self.isRetryable(error) {
                failedAttempts += progress.offset > before.0 ? 0 : 1
                guard failedAttempts < configuration.maximumAttempts else { throw error }
                try await backOff(attempt: failedAttempts)
            }
        }
        let info = progress.info ?? VideoContentInfo(length: progress.offset)
        let size = try await store.run { try file.size() }
        guard size == info.length else {
            throw VideoDownloadError.lengthMismatch(url: url, expected: info.length, actual: size)
        }
        try await store.run { try file.synchronize() }
    }

    /// One `Range` request from `progress.offset`: checks the answer's head, writes its body as it arrives.
    private func fetchNextRange(
        _ id: String, record: DownloadRecord, file: MediaFile, progress: inout ProgressiveProgress
    ) async throws {
        // The URL and headers as they are now: `enqueue` may have refreshed them.
        let record = state.withLock { $0._record(id) } ?? record
        let url = record.url
        let start = progress.offset
        let end =
            progress.info.map { min($0.length, start + configuration.rangeSize) } ?? start + configuration.rangeSize
        var request = URLRequest(url: url)
        for (name, value) in record.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("bytes=\(start)-\(end - 1)", forHTTPHeaderField: "Range")
        if start > 0, let validator = progress.info?.rangeValidator {
            request.setValue(validator, forHTTPHeaderField: "If-Range")
        }
        let response = try await manager.runtime.stream(request)
        let head = response.head
        switch head.statusCode {
        case 206:
            let contentRange = ContentRange(head.header("content-range"))
            guard let contentRange, let range = contentRange.range, let total = contentRange.total else {
                throw VideoDownloadError.unexpectedResponse(
                    url: url, reason: "206 with Content-Range \(head.header("content-range") ?? "(none)")")
            }
            let fresh = VideoUtil.info(of: head, length: total)
            if let info = progress.info, total != info.length || VideoUtil.validatorsDiffer(head, from: info) {
                response.body.cancel()
                try await startOver(id, file: file, info: fresh, progress: &progress)
                return
            }
            guard range.lowerBound == start, range.upperBound <= end || range.upperBound <= total else {
                response.body.cancel()
                throw VideoDownloadError.unexpectedResponse(
                    url: url, reason: "bytes \(range.lowerBound)-\(range.upperBound - 1) where \(start)- were asked")
            }
            if progress.info == nil {
                try await adopt(fresh, id: id, progress: &progress)
                do {
                    try reserve(total - start, for: id, url: url)
                } catch {
                    response.body.cancel()
                    throw error
                }
            }
            try await write(response.body, of: id, to: file, skipping: 0, upTo: range.upperBound, progress: &progress)
        case 200:
            let length = head.contentLength
            let fresh = VideoUtil.info(of: head, length: length ?? progress.info?.length ?? 0)
            if let info = progress.info, length == info.length, !VideoUtil.validatorsDiffer(head, from: info),
                info.etag != nil || info.lastModified != nil
            {
                // The same resource from a server ignoring Range: what is on disk is skipped.
                try await write(
                    response.body, of: id, to: file, skipping: start, upTo: info.length, progress: &progress)
                return
            }
            // New content, or nothing to tell it is not: the whole body, from byte 0.
            try await startOver(id, file: file, info: length == nil ? nil : fresh, progress: &progress)
            do {
                try reserve(length ?? 0, for: id, url: url)
            } catch {
                response.body.cancel()
                throw error
            }
            try await write(response.body, of: id, to: file, skipping: 0, upTo: length ?? .max, progress: &progress)
            if length == nil {
                try await adopt(VideoUtil.info(of: head, length: progress.offset), id: id, progress: &progress)
            }
        case 416:
            response.body.cancel()
            if let info = progress.info, start >= info.length { return }
            try await startOver(id, file: file, info: nil, progress: &progress)
        default:
            response.body.cancel()
            throw AssetsError.httpStatus(code: head.statusCode, url: url)
        }
    }

    /// Writes the body as it arrives, off the cooperative pool, dropping its first `skipping` bytes and
    /// anything past `upTo`: each piece goes to the file as soon as it came (in writes of at most
    /// ``writeSize`` bytes) and counts as progress once written, so the file never lags what arrived by more
    /// than the write under way. What arrived before a failure is on disk: the next attempt goes on after it.
    private func write(
        _ body: ResponseBody, of id: String, to file: MediaFile, skipping: Int, upTo end: Int,
        progress: inout ProgressiveProgress
    ) async throws {
        var toSkip = skipping
        for try await var piece in body {
            if toSkip > 0 {
                let dropped = min(toSkip, piece.count)
                toSkip -= dropped
                piece = piece.dropFirst(dropped)
            }
            let room = end - progress.offset
            if piece.count > room { piece = piece.prefix(max(0, room)) }
            var start = piece.startIndex
            while start < piece.endIndex {
                let part = piece[start..<min(piece.endIndex, start + Self.writeSize)]
                let at = progress.offset
                try await store.run { try file.write([part], at: at) }
                progress.offset += part.count
                recordProgress(id, bytes: part.count)
                start = part.endIndex
            }
            if progress.offset >= end { break }
        }
    }

    /// The resource changed (or cannot be vouched for): the file is emptied first, then the record learns the
    /// new content, so a kill in between never pairs old bytes with new validators.
    private func startOver(
        _ id: String, file: MediaFile, info: VideoContentInfo?, progress: inout ProgressiveProgress
    ) async throws {
        progress.restarts += 1
        guard progress.restarts <= configuration.maximumAttempts else {
            throw VideoDownloadError.unexpectedResponse(
                url: state.withLock { $0._record(id)?.url } ?? URL(fileURLWithPath: "/"),
                reason: "the resource changed \(progress.restarts) times while it was downloaded")
        }
        try await store.run { try file.truncate(to: 0) }
        progress.offset = 0
        progress.info = nil
        resetUsage(id, bytes: 0)
        if let info { try await adopt(info, id: id, progress: &progress) }
    }

    /// Records what the first answer said of the resource (before any byte of it is written).
    private func adopt(_ info: VideoContentInfo, id: String, progress: inout ProgressiveProgress) async throws {
        progress.info = info
        state.withLock { $0._update(id) { $0.info = info } }
        try await store.run { [self] in try saveRecord(id) }
        notify(id)
    }

    static func isRetryable(_ error: Error) -> Bool {
        switch error as? AssetsError {
        case .networkFailure?, .lengthMismatch?: return true
        case .httpStatus(let code, _)?: return RetryPolicy.isTransient(status: code)
        default: return false
        }
    }

    /// Waits before another attempt, as the manager's retry policy would.
    func backOff(attempt: Int) async throws {
        let policy = manager.configuration.retryPolicy
        let ceiling = min(policy.maxDelay, policy.baseDelay * pow(2, Double(max(0, attempt - 1))))
        let seconds = Double.random(in: 0...max(0, ceiling))
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
    }
}
