extension ImageProcessors {
    /// Runs processors in order, as one processor.
    ///
    /// Identifier: the parts' identifiers joined by `>` in the order they run, for example
    /// `resize(96x96,fill,crop,upscale)>circle`; an empty composition is `identity`. Nested
    /// compositions are flattened, so equal pipelines have equal identifiers. Equality and hashing
    /// go by identifier.
    package struct Composition: ImageProcessing, Hashable {
        /// The processors, in the order they run (never a nested `Composition`).
        package let processors: [any ImageProcessing]

        /// Creates a composition of `processors`, flattening nested compositions.
        package init(_ processors: [any ImageProcessing]) {
            self.processors = processors.flatMap { processor -> [any ImageProcessing] in
                (processor as? Composition)?.processors ?? [processor]
            }
        }

        /// `a>b>c`, or `identity` when empty.
        package var identifier: String {
            processors.isEmpty ? "identity" : processors.map(\.identifier).joined(separator: ">")
        }

        /// What the first processor needs from the original.
        package var targetSize: PixelSize? { processors.first?.targetSize }

        /// What the first processor needs of the original.
        package var regionOfInterest: ImageRegion? { processors.first?.regionOfInterest }

        /// Checks every part, in order.
        package func validate() throws {
            for processor in processors { try processor.validate() }
        }

        /// Applies each processor to the previous one's output; stops at the first error.
        package func process(_ image: Image) throws -> Image {
            var result = image
            for processor in processors {
                result = try processor.process(result)
            }
            return result
        }

        /// Equal when the identifiers are equal.
        package static func == (lhs: Composition, rhs: Composition) -> Bool {
            lhs.identifier == rhs.identifier
        }

        /// Hashes the identifier.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(identifier)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Composition {
    /// Runs `processors` in order: `.composition([.aspectFillCrop(size: .square(96)), .circle()])`.
    package static func composition(_ processors: [any ImageProcessing]) -> ImageProcessors.Composition {
        ImageProcessors.Composition(processors)
    }
}

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
