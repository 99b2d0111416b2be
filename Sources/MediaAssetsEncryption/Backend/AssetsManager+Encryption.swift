import MediaAssets

extension AssetsManager {
    /// Wraps the backend registered for `storageType` (the disk cache by default) in an
    /// `EncryptedBackend` and registers the wrapper in its place; compositions such as `.hybrid(t)`
    /// use it from then on. Returns the wrapper, for `sweep()` after a rotation.
    ///
    /// Entries the backend held unencrypted are not readable through the wrapper (they do not open):
    /// they are misses, removed on sight or by `sweep()`.
    ///
    /// - Throws: `AssetsError.backendNotRegistered`.
    @discardableResult
    public func encryptAtRest(_ storageType: StorageType = .disk, keys: any KeyProviding) throws -> EncryptedBackend {
        let encrypted = EncryptedBackend(wrapping: try backend(for: storageType), keys: keys)
        register(encrypted, for: storageType)
        return encrypted
    }
}
