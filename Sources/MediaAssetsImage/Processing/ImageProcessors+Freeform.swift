extension ImageProcessors {
    /// A processor made of a closure, named so its output can be cached.
    ///
    /// Identifier: `freeform(<name>)`, with bytes outside `[A-Za-z0-9._~-]` percent-encoded
    /// (`"sepia tone"` gives `freeform(sepia%20tone)`). Two freeforms are equal when their names
    /// are: the name must change whenever the transform does, or caches serve stale output.
    package struct Freeform: ImageProcessing, Hashable {
        /// The name that identifies the transform.
        package let name: String
        /// The transform; its errors reach the caller unchanged.
        package let transform: @Sendable (Image) throws -> Image

        /// Creates a processor named `name` that runs `transform`.
        package init(name: String, transform: @escaping @Sendable (Image) throws -> Image) {
            self.name = name
            self.transform = transform
        }

        /// `freeform(<escaped name>)`.
        package var identifier: String { "freeform(\(ImageProcessors.escape(name)))" }

        /// Runs the transform.
        package func process(_ image: Image) throws -> Image {
            try transform(image)
        }

        /// Equal when the names are equal.
        package static func == (lhs: Freeform, rhs: Freeform) -> Bool {
            lhs.name == rhs.name
        }

        /// Hashes the name.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(name)
        }
    }
}
