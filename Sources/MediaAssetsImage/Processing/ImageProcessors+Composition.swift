extension ImageProcessors {
    /// Runs processors in order, as one processor.
    ///
    /// Identifier: the parts' identifiers joined by `>` in the order they run, for example
    /// `resize(96x96,fill,crop,upscale)>circle`; an empty composition is `identity`. Nested
    /// compositions are flattened, so equal pipelines have equal identifiers. Equality and hashing
    /// go by identifier.
    public struct Composition: ImageProcessing, Hashable {
        /// The processors, in the order they run (never a nested `Composition`).
        public let processors: [any ImageProcessing]

        /// Creates a composition of `processors`, flattening nested compositions.
        public init(_ processors: [any ImageProcessing]) {
            self.processors = processors.flatMap { processor -> [any ImageProcessing] in
                (processor as? Composition)?.processors ?? [processor]
            }
        }

        /// `a>b>c`, or `identity` when empty.
        public var identifier: String {
            processors.isEmpty ? "identity" : processors.map(\.identifier).joined(separator: ">")
        }

        /// What the first processor needs from the original.
        public var targetSize: PixelSize? { processors.first?.targetSize }

        /// What the first processor needs of the original.
        public var regionOfInterest: ImageRegion? { processors.first?.regionOfInterest }

        /// Checks every part, in order.
        public func validate() throws {
            for processor in processors { try processor.validate() }
        }

        /// Applies each processor to the previous one's output; stops at the first error.
        public func process(_ image: Image) throws -> Image {
            var result = image
            for processor in processors {
                result = try processor.process(result)
            }
            return result
        }

        /// Equal when the identifiers are equal.
        public static func == (lhs: Composition, rhs: Composition) -> Bool {
            lhs.identifier == rhs.identifier
        }

        /// Hashes the identifier.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(identifier)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Composition {
    /// Runs `processors` in order: `.composition([.aspectFillCrop(size: .square(96)), .circle()])`.
    public static func composition(_ processors: [any ImageProcessing]) -> ImageProcessors.Composition {
        ImageProcessors.Composition(processors)
    }
}
