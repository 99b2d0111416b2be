/// Masks an image to a shape and/or draws a border inside the shape's edge, in one pass over the
/// pixels near the edge (the interior is never touched).
///
/// Per pixel, with `outer` the shape's coverage, `inner` the coverage of the shape inset by the
/// border width, `ring = outer - inner`, and a premultiplied border colour of opacity `β`:
/// `result = border × ring + pixel × (clip ? outer : 1) - pixel × ring × β`.
/// Clipping and stroking together thus split each edge pixel exactly between outside, border and
/// image (no dark fringe from compositing two anti-aliased edges); stroking alone is Porter-Duff
/// "over". Results are premultiplied (each colour <= alpha).
enum ShapeRenderer {
    struct Stroke {
        var width: Double
        var color: RGBA
    }

    /// Masks (`clips`) and/or strokes `image` along `outline`.
    ///
    /// `skipsInterior` is for tests, which compare the fast path with a brute-force one.
    static func render(
        _ image: Image, outline: ShapeOutline, clips: Bool, stroke: Stroke?, skipsInterior: Bool = true
    ) -> Image {
        let strokeWidth = stroke.map { max(0, $0.width) } ?? 0
        let strokes = stroke != nil && strokeWidth > 0
        let inner = strokes ? outline.inset(by: strokeWidth) : nil
        let innerIsOffset = inner != nil && outline.radius >= strokeWidth
        let border = (stroke?.color ?? .transparent).premultiplied
        let borderColor = SIMD4<Double>(
            Double(border.red), Double(border.green), Double(border.blue), Double(border.alpha)
        )
        let borderOpacity = Double(border.alpha) / 255
        // Pixel centres this deep inside the outline are fully covered by it and by `inner`;
        // centres a pixel or more outside it are not covered at all.
        let untouched = skipsInterior ? outline.inset(by: strokeWidth + 1) : nil
        let reach = skipsInterior ? outline.inset(by: -1) : nil

        /// Blends one edge pixel in place.
        @inline(__always)
        func paint(_ pixel: UnsafeMutablePointer<UInt8>, x: Int, y: Int) {
            let distance = outline.signedDistance(x: x, y: y)
            let outer = ShapeOutline.coverage(atDistance: distance)
            var ring = 0.0
            if strokes {
                // With rounded inner corners the inset outline's distance is this one's plus the
                // width; otherwise (square inner corners) it is computed.
                let innerCoverage =
                    innerIsOffset
                    ? ShapeOutline.coverage(atDistance: distance + strokeWidth)
                    : inner?.coverage(x: x, y: y) ?? 0
                ring = outer > innerCoverage ? outer - innerCoverage : 0
            }
            let imageWeight = (clips ? outer : 1) - ring * borderOpacity
            if ring == 0 && imageWeight == 1 { return }
            let original = SIMD4<Double>(Double(pixel[0]), Double(pixel[1]), Double(pixel[2]), Double(pixel[3]))
            // Both weights are >= 0 and sum to <= 1, so each value is in 0.5...255.5.
            let value = borderColor * ring + original * imageWeight + 0.5
            let clamped = value.replacing(with: 255, where: value .> 255)
            for channel in 0..<4 {
                pixel[channel] = UInt8(truncatingIfNeeded: Int(clamped[channel]))
            }
        }

        var result = image
        let width = image.width
        result.pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in 0..<image.height {
                let row = base + y * width * 4
                let covered = reach?.columnsInside(row: y, imageWidth: width) ?? 0..<width
                if clips {
                    row.update(repeating: 0, count: covered.lowerBound * 4)
                    let end = covered.isEmpty ? 0 : covered.upperBound
                    (row + end * 4).update(repeating: 0, count: (width - end) * 4)
                }
                let quiet = untouched?.columnsInside(row: y, imageWidth: width) ?? 0..<0
                if quiet.isEmpty {
                    for x in covered { paint(row + x * 4, x: x, y: y) }
                } else {
                    // `quiet` lies inside `covered`; the clamps only keep the ranges well-formed.
                    let leftEnd = max(covered.lowerBound, quiet.lowerBound)
                    let rightStart = min(covered.upperBound, quiet.upperBound)
                    for x in covered.lowerBound..<leftEnd { paint(row + x * 4, x: x, y: y) }
                    for x in rightStart..<covered.upperBound { paint(row + x * 4, x: x, y: y) }
                }
            }
        }
        return result
    }
}
