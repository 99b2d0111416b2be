import Foundation

extension ThumbHash {
    /// The layout a hash's header declares.
    private struct Layout {
        let hasAlpha: Bool
        let isLandscape: Bool
        let lx: Int
        let ly: Int
        var acStart: Int { hasAlpha ? 6 : 5 }

        init(_ hash: [UInt8]) {
            let byte = { (index: Int) in index < hash.count ? Int(hash[index]) : 0 }
            let header16 = byte(3) | byte(4) << 8
            hasAlpha = byte(2) & 0x80 != 0
            isLandscape = header16 >> 15 != 0
            lx = max(3, isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7)
            ly = max(3, isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7))
        }

        /// How many AC coefficients a channel of nx × ny carries (the triangle the encoder keeps).
        static func coefficientCount(_ nx: Int, _ ny: Int) -> Int {
            var count = 0
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    count += 1
                    cx += 1
                }
            }
            return count
        }

        var acCount: Int {
            Self.coefficientCount(lx, ly) + 2 * Self.coefficientCount(3, 3)
                + (hasAlpha ? Self.coefficientCount(5, 5) : 0)
        }
    }

    /// The bytes a hash must have for its header's layout.
    static func requiredByteCount(_ hash: [UInt8]) -> Int {
        guard hash.count >= 5 else { return 5 }
        let layout = Layout(hash)
        return layout.acStart + (layout.acCount + 1) / 2
    }

    /// Width / height as the header approximates it (never zero or infinite).
    static func aspectRatio(_ hash: [UInt8]) -> Double {
        guard hash.count >= 5 else { return 1 }
        let header = Int(hash[3])
        let hasAlpha = hash[2] & 0x80 != 0
        let isLandscape = hash[4] & 0x80 != 0
        let lx = isLandscape ? (hasAlpha ? 5 : 7) : header & 7
        let ly = isLandscape ? header & 7 : (hasAlpha ? 5 : 7)
        return Double(max(1, lx)) / Double(max(1, ly))
    }

    /// The average colour the hash stores.
    static func averageColor(_ hash: [UInt8]) -> RGBA {
        guard hash.count >= 5 else { return .transparent }
        let header = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let l = Double(header & 63) / 63
        let p = Double(header >> 6 & 63) / 31.5 - 1
        let q = Double(header >> 12 & 63) / 31.5 - 1
        let hasAlpha = header >> 23 != 0
        let a = hasAlpha && hash.count > 5 ? Double(hash[5] & 15) / 15 : 1
        let b = l - 2.0 / 3.0 * p
        let r = (3 * l - b + q) / 2
        let g = r - q
        return RGBA(red: unit(r), green: unit(g), blue: unit(b), alpha: unit(a))
    }

    /// The placeholder picture of a hash whose length `requiredByteCount` has accepted.
    static func decode(_ hash: [UInt8]) -> Image {
        guard hash.count >= requiredByteCount(hash) else { return Image(width: 1, height: 1) }
        let layout = Layout(hash)
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        let lDC = Double(header24 & 63) / 63
        let pDC = Double(header24 >> 6 & 63) / 31.5 - 1
        let qDC = Double(header24 >> 12 & 63) / 31.5 - 1
        let lScale = Double(header24 >> 18 & 31) / 31
        let pScale = Double(header16 >> 3 & 63) / 63
        let qScale = Double(header16 >> 9 & 63) / 63
        let aDC = layout.hasAlpha ? Double(hash[5] & 15) / 15 : 1
        let aScale = layout.hasAlpha ? Double(hash[5] >> 4) / 15 : 0

        var acIndex = 0
        func decodeChannel(_ nx: Int, _ ny: Int, _ scale: Double) -> [Double] {
            (0..<Layout.coefficientCount(nx, ny)).map { _ in
                let byte = Int(hash[layout.acStart + acIndex >> 1])
                let nibble = byte >> ((acIndex & 1) << 2) & 15
                acIndex += 1
                return (Double(nibble) / 7.5 - 1) * scale
            }
        }
        let lAC = decodeChannel(layout.lx, layout.ly, lScale)
        let pAC = decodeChannel(3, 3, pScale * 1.25)
        let qAC = decodeChannel(3, 3, qScale * 1.25)
        let aAC = layout.hasAlpha ? decodeChannel(5, 5, aScale) : []

        let ratio = aspectRatio(hash)
        let w = max(1, Int((ratio > 1 ? 32 : 32 * ratio).rounded()))
        let h = max(1, Int((ratio > 1 ? 32 / ratio : 32).rounded()))
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        let n = max(layout.lx, layout.ly, layout.hasAlpha ? 5 : 3)
        var fx = [Double](repeating: 0, count: n)
        var fy = [Double](repeating: 0, count: n)
        for y in 0..<h {
            for cy in 0..<n { fy[cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
            for x in 0..<w {
                for cx in 0..<n { fx[cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                let l = lDC + sum(lAC, layout.lx, layout.ly, fx, fy)
                let p = pDC + sum(pAC, 3, 3, fx, fy)
                let q = qDC + sum(qAC, 3, 3, fx, fy)
                let a = aDC + (layout.hasAlpha ? sum(aAC, 5, 5, fx, fy) : 0)
                let b = l - 2.0 / 3.0 * p
                let r = (3 * l - b + q) / 2
                let g = r - q
                let color = RGBA(red: unit(r), green: unit(g), blue: unit(b), alpha: unit(a)).premultiplied
                let offset = (y * w + x) * 4
                pixels[offset] = color.red
                pixels[offset + 1] = color.green
                pixels[offset + 2] = color.blue
                pixels[offset + 3] = color.alpha
            }
        }
        return Image(width: w, height: h, pixels: pixels)
    }

    /// Σ ac[j] · fx[cx] · 2 fy[cy] over the coefficient triangle of nx × ny.
    private static func sum(_ ac: [Double], _ nx: Int, _ ny: Int, _ fx: [Double], _ fy: [Double]) -> Double {
        var total = 0.0
        var j = 0
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            let fy2 = fy[cy] * 2
            while cx * ny < nx * (ny - cy) {
                total += ac[j] * fx[cx] * fy2
                j += 1
                cx += 1
            }
        }
        return total
    }

    private static func unit(_ value: Double) -> UInt8 {
        UInt8(max(0, min(1, value)) * 255)
    }
}
