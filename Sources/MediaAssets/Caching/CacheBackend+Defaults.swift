extension CacheBackend {
    /// Throws `AssetsError.unsupported`: a backend without pins says so.
    public func pin(_ pin: Pin) async throws {
        throw AssetsError.unsupported(operation: "pin(\(pin))", backend: String(describing: type(of: self)))
    }

    /// Throws `AssetsError.unsupported`: a backend without pins says so.
    public func unpin(_ pin: Pin) async throws {
        throw AssetsError.unsupported(operation: "unpin(\(pin))", backend: String(describing: type(of: self)))
    }

    /// A sequence that throws `AssetsError.unsupported`: a backend that cannot list its keys says so.
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        let backend = String(describing: type(of: self))
        return AsyncThrowingStream(unfolding: {
            throw AssetsError.unsupported(operation: "storedKeys(batchSize:)", backend: backend)
        })
    }
}
