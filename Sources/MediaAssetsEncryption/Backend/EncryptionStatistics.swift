/// What an `EncryptedBackend` did beyond its storage's counters.
public struct EncryptionStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Entries sealed and stored.
    public var sealed = 0
    /// Entries opened for a read.
    public var opened = 0
    /// Entries found sealed with a key the provider no longer has: misses, removed (crypto-shredding).
    public var shredded = 0
    /// Entries that did not open (damaged, not sealed by this backend, or copied under another name):
    /// misses, removed.
    public var undecryptable = 0
    /// Entries the sweeps re-encrypted with the current key.
    public var resealed = 0

    /// No counts.
    package init() {}

    public var description: String {
        "sealed \(sealed), opened \(opened), shredded \(shredded), undecryptable \(undecryptable), resealed \(resealed)"
    }
}

/// What one `EncryptedBackend.sweep()` found and did.
public struct SweepReport: Sendable, Hashable, CustomStringConvertible {
    /// Entries looked at.
    public var examined = 0
    /// Entries already sealed with the current key.
    public var current = 0
    /// Entries re-encrypted with the current key.
    public var resealed = 0
    /// Entries removed because the provider no longer has their key.
    public var shredded = 0
    /// Entries removed because they did not open.
    public var undecryptable = 0
    /// Entries left for the next sweep: written meanwhile, or gone before they were read.
    public var skipped = 0

    /// No counts.
    package init() {}

    public var description: String {
        "examined \(examined): current \(current), resealed \(resealed), shredded \(shredded), "
            + "undecryptable \(undecryptable), skipped \(skipped)"
    }
}
