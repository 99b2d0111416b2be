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
