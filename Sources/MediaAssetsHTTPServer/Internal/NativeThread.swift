#if canImport(Glibc)
import Glibc
#endif

/// Starts joinable POSIX threads, so `HTTPServer.stop()` can wait for the thread it started.
enum NativeThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a thread running `body`; join it with ``join(_:)``.
    static func start(_ body: @escaping @Sendable () -> Void) throws(HTTPServerError) -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
                return nil
            }, context)
        guard code == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw .threadStartFailed(code: code)
        }
        return thread
    }

    /// Waits for `thread` to end and frees it.
    static func join(_ thread: pthread_t) {
        _ = pthread_join(thread, nil)
    }

    /// Whether the calling thread is `thread`.
    static func isCurrent(_ thread: pthread_t) -> Bool {
        pthread_equal(pthread_self(), thread) != 0
    }
}
