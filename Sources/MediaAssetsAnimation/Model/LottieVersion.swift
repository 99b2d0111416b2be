/// The format version an animation declares, normalised from either spelling.
///
/// Exporters such as bodymovin write `"v": "5.5.2"` (the exporter's version); the Lottie community
/// specification writes `"ver": 10000`, an integer `MMmmpp` (here 1.0.0). Both become
/// major/minor/patch; `origin` says which key it came from.
public struct LottieVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Which key the version was read from.
    package enum Origin: Sendable, Hashable {
        /// The bodymovin string key `v`.
        case bodymovin
        /// The specification's integer key `ver`.
        case specification
    }

    /// The major component.
    public var major: Int
    /// The minor component.
    public var minor: Int
    /// The patch component.
    public var patch: Int
    /// The key this version came from.
    package var origin: Origin

    /// Creates a version from its components.
    package init(major: Int, minor: Int, patch: Int, origin: Origin) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.origin = origin
    }

    /// Parses a bodymovin version string such as `"5.5.2"`; missing or non-numeric parts count as 0.
    ///
    /// Returns nil when the string does not start with a number.
    package init?(bodymovin text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).prefix(3)
        let numbers = parts.map { part in Int(part.prefix { $0.isASCII && $0.isNumber }) }
        guard let major = numbers.first ?? nil else { return nil }
        self.init(
            major: major,
            minor: numbers.count > 1 ? numbers[1] ?? 0 : 0,
            patch: numbers.count > 2 ? numbers[2] ?? 0 : 0,
            origin: .bodymovin
        )
    }

    /// Decodes the specification's integer `MMmmpp` form (for example `10000` is 1.0.0).
    ///
    /// Returns nil for negative values.
    package init?(specification value: Int) {
        guard value >= 0 else { return nil }
        self.init(major: value / 10_000, minor: value / 100 % 100, patch: value % 100, origin: .specification)
    }

    /// `major.minor.patch`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// Orders by major, then minor, then patch (the origin is ignored).
    public static func < (lhs: LottieVersion, rhs: LottieVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
