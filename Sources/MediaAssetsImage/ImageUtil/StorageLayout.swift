import MediaAssets

/// Where `ImageUtil` reads and writes for the storage type a caller names.
///
/// The styled variants go to the storage type itself, so under `.hybrid(t)` their bytes reach the
/// disk and their decoded images stay in `.lru(t)`. The original's raw bytes go to the byte part
/// only (`.disk` for `.hybrid(t)`): a multi-megabyte JPEG that is never shown as is should not push
/// the small decoded avatars out of the image memory partition.
struct StorageLayout: Sendable, Hashable {
    /// Where styled variants are stored: bytes, and the decoded image where a memory backend keeps it.
    let variants: StorageType
    /// The memory partition whose entries carry decoded images, if the storage type has one.
    let memory: StorageType?
    /// Where bytes are read directly (a hybrid read would promote bytes without an image) and where
    /// the original's bytes are fetched into.
    let bytes: StorageType

    init(_ storageType: StorageType) {
        variants = storageType
        memory = storageType.memoryPartition
        bytes = storageType.byteStorage
    }
}
