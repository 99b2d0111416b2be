import Foundation

/// ThumbHash (https://github.com/evanw/thumbhash, MIT): an image's low frequencies in L, P, Q (and alpha) as
/// quantised DCT coefficients. A straight port of the reference encoder and decoder, taking premultiplied
/// pixels (the reference multiplies by alpha itself) and bounds-checking every read of an untrusted hash.
enum ThumbHash {
    /// The hash of `image` (at most 100×100).
    static func encode(_ image: Image) -> Data {
        let (w, h) = (image.width, image.height)
        let pixels = image.pixels
        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for i in 0..<w * h {
            let alpha = Double(pixels[i * 4 + 3]) / 255
            average.r += Double(pixels[i * 4]) / 255
            average.g += Double(pixels[i * 4 + 1]) / 255
            average.b += Double(pixels[i * 4 + 2]) / 255
            average.a += alpha
        }
        if average.a > 0 {
            average.r /= average.a
            average.g /= average.a
            average.b /= average.a
        }
        let hasAlpha = average.a < Double(w * h)
        let luminanceLimit = hasAlpha ? 5.0 : 7.0
        let longer = Double(max(w, h))
        let lx = max(1, Int((luminanceLimit * Double(w) / longer).rounded()))
        let ly = max(1, Int((luminanceLimit * Double(h) / longer).rounded()))
        var l = [Double](repeating: 0, count: w * h)
        var p = l
        var q = l
        var a = l
        for i in 0..<w * h {
            let alpha = Double(pixels[i * 4 + 3]) / 255
            let r = average.r * (1 - alpha) + Double(pixels[i * 4]) / 255
            let g = average.g * (1 - alpha) + Double(pixels[i * 4 + 1]) / 255
            let b = average.b * (1 - alpha) + Double(pixels[i * 4 + 2]) / 255
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        let luminance = encodeChannel(l, w, h, max(3, lx), max(3, ly))
        let yellowBlue = encodeChannel(p, w, h, 3, 3)
        let redGreen = encodeChannel(q, w, h, 3, 3)
        let alphaChannel = hasAlpha ? encodeChannel(a, w, h, 5, 5) : nil

        let isLandscape = w > h
        let header24 =
            Int((63 * luminance.dc).rounded()) | Int((31.5 + 31.5 * yellowBlue.dc).rounded()) << 6
            | Int((31.5 + 31.5 * redGreen.dc).rounded()) << 12 | Int((31 * luminance.scale).rounded()) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 =
            (isLandscape ? ly : lx) | Int((63 * yellowBlue.scale).rounded()) << 3
            | Int((63 * redGreen.scale).rounded()) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
            UInt8(header16 & 255), UInt8(header16 >> 8 & 255),
        ]
        if let alphaChannel {
            hash.append(UInt8(Int((15 * alphaChannel.dc).rounded()) | Int((15 * alphaChannel.scale).rounded()) << 4))
        }
        var acIndex = 0
        for channel in [luminance, yellowBlue, redGreen] + (alphaChannel.map { [$0] } ?? []) {
            for factor in channel.ac {
                if acIndex & 1 == 0 { hash.append(0) }
                hash[hash.count - 1] |= UInt8(Int((15 * factor).rounded()) << ((acIndex & 1) << 2))
                acIndex += 1
            }
        }
        return Data(hash)
    }

    private static func encodeChannel(
        _ channel: [Double], _ w: Int, _ h: Int, _ nx: Int, _ ny: Int
    ) -> (dc: Double, ac: [Double], scale: Double) {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                var f = 0.0
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }
}
