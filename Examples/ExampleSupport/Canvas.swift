import MediaAssetsImage

/// A square premultiplied RGBA8 drawing surface with anti-aliased ellipses and arcs.
///
/// Edges get a one-pixel coverage ramp; the inside of an ellipse is filled a row span at a
/// time, so painting a 1024-pixel portrait stays quick even in a debug build.
struct Canvas {
    let side: Int
    private(set) var pixels: [UInt8]

    init(side: Int, background: RGBA) {
        self.side = side
        pixels = [UInt8](repeating: 0, count: side * side * 4)
        if background.alpha > 0 {
            let color = background.premultiplied
            pixels.withUnsafeMutableBufferPointer { buffer in
                Self.fillSpan(buffer, from: 0, count: side * side, with: color)
            }
        }
    }

    var image: Image { Image(width: side, height: side, pixels: pixels) }

    /// Fills an axis-aligned ellipse (coverage ramps over one pixel at the edge).
    mutating func fillEllipse(centerX: Double, centerY: Double, radiusX: Double, radiusY: Double, color: RGBA) {
        guard radiusX > 0.5, radiusY > 0.5 else { return }
        let source = color.premultiplied
        let minRadius = min(radiusX, radiusY)
        // Coverage is (1 - r) * minRadius + 0.5 for the normalised radius r: full inside `inner`,
        // none beyond `outer`.
        let inner = 1 - 0.5 / minRadius
        let outer = 1 + 0.5 / minRadius
        let side = side
        let firstRow = max(0, Int(centerY - radiusY * outer)), lastRow = min(side - 1, Int(centerY + radiusY * outer))
        guard firstRow <= lastRow else { return }
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in firstRow...lastRow {
                let dy = (Double(y) + 0.5 - centerY) / radiusY
                let outerSquared = outer * outer - dy * dy
                guard outerSquared > 0 else { continue }
                let outerHalf = radiusX * outerSquared.squareRoot()
                let innerSquared = inner * inner - dy * dy
                let innerHalf = innerSquared > 0 ? radiusX * innerSquared.squareRoot() : 0
                // Pixel columns whose centres fall inside the inner ellipse are fully covered.
                let solidStart = max(0, Int((centerX - innerHalf - 0.5).rounded(.up)))
                let solidEnd = min(side - 1, Int((centerX + innerHalf - 0.5).rounded(.down)))
                let edgeStart = max(0, Int(centerX - outerHalf) - 1)
                let edgeEnd = min(side - 1, Int(centerX + outerHalf) + 1)
                let rowOffset = y * side
                var x = edgeStart
                while x <= edgeEnd {
                    if innerHalf > 0, x == solidStart, solidStart <= solidEnd, source.alpha == 255 {
                        Self.fillSpan(buffer, from: rowOffset + x, count: solidEnd - solidStart + 1, with: source)
                        x = solidEnd + 1
                        continue
                    }
                    let dx = (Double(x) + 0.5 - centerX) / radiusX
                    let coverage = (1 - (dx * dx + dy * dy).squareRoot()) * minRadius + 0.5
                    if coverage > 0 {
                        Self.blend(source, coverage: min(1, coverage), into: buffer, at: (rowOffset + x) * 4)
                    }
                    x += 1
                }
            }
        }
    }

    /// Fills the lower half of a ring: a smile.
    mutating func fillLowerArc(centerX: Double, centerY: Double, radius: Double, thickness: Double, color: RGBA) {
        let source = color.premultiplied
        let middle = radius - thickness / 2
        let side = side
        let minX = max(0, Int(centerX - radius) - 1), maxX = min(side - 1, Int(centerX + radius) + 1)
        let minY = max(0, Int(centerY)), maxY = min(side - 1, Int(centerY + radius) + 1)
        guard minX <= maxX, minY <= maxY else { return }
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in minY...maxY {
                let dy = Double(y) + 0.5 - centerY
                guard dy >= 0 else { continue }
                for x in minX...maxX {
                    let dx = Double(x) + 0.5 - centerX
                    let coverage = thickness / 2 - abs((dx * dx + dy * dy).squareRoot() - middle) + 0.5
                    if coverage > 0 {
                        Self.blend(source, coverage: min(1, coverage), into: buffer, at: (y * side + x) * 4)
                    }
                }
            }
        }
    }

    /// Writes `count` pixels of `color` (premultiplied) from pixel `start` on.
    private static func fillSpan(
        _ buffer: UnsafeMutableBufferPointer<UInt8>, from start: Int, count: Int, with color: RGBA
    ) {
        guard count > 0, let base = buffer.baseAddress, (start + count) * 4 <= buffer.count else { return }
        let bytes = [color.red, color.green, color.blue, color.alpha]
        let pattern = bytes.withUnsafeBytes { $0.load(as: UInt32.self) }
        UnsafeMutableRawPointer(base + start * 4).withMemoryRebound(to: UInt32.self, capacity: count) { pixels in
            pixels.update(repeating: pattern, count: count)
        }
    }

    /// Premultiplied "over" at partial coverage: destination = source × c + destination × (1 − alpha × c).
    private static func blend(
        _ source: RGBA, coverage: Double, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) {
        let keep = 1 - Double(source.alpha) / 255 * coverage
        for (channel, value) in [source.red, source.green, source.blue, source.alpha].enumerated() {
            let mixed = Double(value) * coverage + Double(buffer[offset + channel]) * keep
            buffer[offset + channel] = UInt8(min(255, mixed.rounded()))
        }
    }
}
