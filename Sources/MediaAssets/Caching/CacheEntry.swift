import Foundation

/// What a backend stores under a key: the bytes, their metadata and, in memory backends only, a
/// decoded object beside the bytes so that a memory hit costs no decoding or parsing.
///
/// A value type over one immutable storage object: copying an entry (out of a cache, into a task)
/// costs a single reference count, however many fields it has; setting a field makes new storage.
public struct CacheEntry: Sendable {
    private final class Storage: Sendable {
        // What a memory cache reads on every hit and store comes first, in the cache line of the
        // reference count it touches anyway (stored properties are laid out in declaration order).
        /// `metadata.expires`, kept apart so a cache can check it without copying the metadata.
        let expires: Date?
        /// `data.count` plus the decoded object's cost, computed once.
        let memoryCost: Int
        let data: Data
        let decoded: DecodedObject?
        let metadata: CacheMetadata

        init(data: Data, metadata: CacheMetadata, decoded: DecodedObject?) {
            self.expires = metadata.expires
            self.memoryCost = data.count + (decoded?.cost ?? 0)
            self.data = data
            self.decoded = decoded
            self.metadata = metadata
        }
    }

    private var storage: Storage

    /// Creates an entry.
    public init(data: Data, metadata: CacheMetadata = CacheMetadata(), decoded: DecodedObject? = nil) {
        storage = Storage(data: data, metadata: metadata, decoded: decoded)
    }

    /// The stored bytes (the encoded image, the animation's JSON, a video chunk).
    public var data: Data {
        get { storage.data }
        set { storage = Storage(data: newValue, metadata: storage.metadata, decoded: storage.decoded) }
    }

    /// Dates, HTTP validators and content type.
    public var metadata: CacheMetadata {
        get { storage.metadata }
        set { storage = Storage(data: storage.data, metadata: newValue, decoded: storage.decoded) }
    }

    /// A decoded form of `data` that memory backends keep; byte backends ignore it.
    public var decoded: DecodedObject? {
        get { storage.decoded }
        set { storage = Storage(data: storage.data, metadata: storage.metadata, decoded: newValue) }
    }

    /// The size of the bytes.
    package var size: Int { storage.data.count }

    /// The memory an in-memory backend charges for this entry: the bytes plus the decoded object.
    package var memoryCost: Int { storage.memoryCost }

    /// Whether the entry may be used at `date` without revalidation (its `freshUntil` has not passed).
    package func isFresh(at date: Date) -> Bool {
        guard let freshUntil = storage.metadata.freshUntil else { return true }
        return freshUntil > date
    }

    /// Whether a stale entry may be served at `date` while it is revalidated in the background.
    package func canServeStaleWhileRevalidating(at date: Date) -> Bool {
        guard let until = storage.metadata.staleWhileRevalidateUntil else { return false }
        return until > date
    }

    /// Whether a stale entry may be served at `date` because the origin failed.
    package func canServeStaleIfError(at date: Date) -> Bool {
        guard let until = storage.metadata.staleIfErrorUntil else { return false }
        return until > date
    }

    /// Whether the entry's hard expiry has passed at `date`; an expired entry is a miss in every backend.
    public func isExpired(at date: Date) -> Bool {
        guard let expires = storage.expires else { return false }
        return expires <= date
    }

    /// The hard expiry, read without copying the metadata (for caches on their hot path).
    var expires: Date? { storage.expires }

    /// `metadata.freshUntil`, read without copying the metadata.
    var freshUntil: Date? { storage.metadata.freshUntil }

    /// Whether two entries are the same stored value (not merely equal contents).
    func isSameStorage(as other: CacheEntry) -> Bool { storage === other.storage }
}

/// Metadata kept with every entry and persisted by byte backends.
public struct CacheMetadata: Sendable, Hashable, Codable {
    /// When the entry was first stored.
    public var created: Date
    /// When the entry was last read or written. Backends maintain it; byte backends persist it lazily.
    public var lastAccess: Date
    /// The hard expiry: from this date on the entry is a miss and may be removed. `nil` keeps it
    /// until evicted.
    public var expires: Date?
    /// HTTP freshness: after this date the loader revalidates the entry before use (a 304 keeps the
    /// bytes). Backends store it and otherwise ignore it.
    public var freshUntil: Date?
    /// The response's `ETag`, sent back as `If-None-Match` / `If-Range`.
    public var etag: String?
    /// The response's `Last-Modified` (as the server wrote it), sent back as `If-Modified-Since`.
    public var lastModified: String?
    /// The response's `Content-Type`.
    public var contentType: String?
    /// RFC 5861 `stale-while-revalidate`: until this date a stale entry may be served at once while
    /// it is revalidated in the background.
    public var staleWhileRevalidateUntil: Date?
    /// RFC 5861 `stale-if-error`: until this date a stale entry may be served when the origin fails.
    public var staleIfErrorUntil: Date?
    /// The memory partition of the `.hybrid(t)` composition that stored the entry, nil otherwise.
    ///
    /// Byte backends persist it, so `removeEntries(.partition(t))` clears one media type's entries
    /// from a storage that several partitions share.
    public var partition: LRUCacheType?

    /// Creates metadata; `created` and `lastAccess` default to now.
    public init(
        created: Date = Date(),
        lastAccess: Date? = nil,
        expires: Date? = nil,
        freshUntil: Date? = nil,
        etag: String? = nil,
        lastModified: String? = nil,
        contentType: String? = nil,
        staleWhileRevalidateUntil: Date? = nil,
        staleIfErrorUntil: Date? = nil,
        partition: LRUCacheType? = nil
    ) {
        self.created = created
        self.lastAccess = lastAccess ?? created
        self.expires = expires
        self.freshUntil = freshUntil
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.staleWhileRevalidateUntil = staleWhileRevalidateUntil
        self.staleIfErrorUntil = staleIfErrorUntil
        self.partition = partition
    }
}

// Encoded as its raw value, so persisted metadata reads as the partition's name.
extension LRUCacheType: Codable {}

/// A decoded object (an image bitmap, a parsed animation) with the memory it occupies.
///
/// The object is kept under its own type, so a util reads it back with `value(as:)` by comparing one type, with
/// no cast from `any Sendable` (a memory hit does this on every ask).
public struct DecodedObject: Sendable {
    @usableFromInline var box: DecodedObjectBox
    /// An estimate of the object's size in memory, in bytes; memory limits count it.
    package var cost: Int

    /// Creates a decoded object with its cost in bytes. An argument typed `any Sendable` is kept under the type
    /// of the value it holds.
    public init<Value: Sendable>(_ value: Value, cost: Int) {
        self.box = TypedDecodedObjectBox(value)
        self.cost = max(0, cost)
    }

    /// The object, for a util that reads it back with `as?` (`value(as:)` is cheaper).
    package var value: any Sendable {
        get { box.erasedValue }
        set { box = Self.box(newValue) }
    }

    /// The object if it was stored as a `Value`, else `nil`.
    ///
    /// - Complexity: O(1): one comparison of types, no cast of an existential.
    @inlinable
    public func value<Value: Sendable>(as type: Value.Type) -> Value? {
        guard let typed = box as? TypedDecodedObjectBox<Value> else { return nil }
        return typed.value
    }

    private static func box<Value: Sendable>(_ value: Value) -> DecodedObjectBox {
        TypedDecodedObjectBox(value)
    }
}

/// Holds a decoded object; one subclass per type, so that reading it back as its type checks a class.
@usableFromInline
class DecodedObjectBox: @unchecked Sendable {
    // Immutable in every subclass: `@unchecked` only because a non-final class cannot be checked.
    var erasedValue: any Sendable { fatalError("DecodedObjectBox is abstract") }
}

@usableFromInline
final class TypedDecodedObjectBox<Value: Sendable>: DecodedObjectBox, @unchecked Sendable {
    @usableFromInline let value: Value

    init(_ value: Value) { self.value = value }

    override var erasedValue: any Sendable { value }
}
