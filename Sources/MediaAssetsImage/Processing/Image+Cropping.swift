extension Image {
    /// The centred `width × height` part of this image (each side clamped to the image's).
    func centerCropped(width: Int, height: Int) -> Image {
        let cropWidth = min(max(width, 1), self.width)
        let cropHeight = min(max(height, 1), self.height)
        let left = (self.width - cropWidth) / 2
        let top = (self.height - cropHeight) / 2
        return cropped(to: PixelRect(x: left, y: top, width: cropWidth, height: cropHeight))
    }

    /// The part of this image inside `rect` (clamped to the image, at least one pixel).
    func cropped(to rect: PixelRect) -> Image {
        let left = min(max(rect.x, 0), width - 1)
        let top = min(max(rect.y, 0), height - 1)
        let cropWidth = min(max(rect.width, 1), width - left)
        let cropHeight = min(max(rect.height, 1), height - top)
        guard cropWidth != width || cropHeight != height else { return self }
        let rowBytes = cropWidth * 4
        var cropped = [UInt8]()
        cropped.reserveCapacity(rowBytes * cropHeight)
        for row in top..<(top + cropHeight) {
            let start = (row * width + left) * 4
            cropped.append(contentsOf: pixels[start..<(start + rowBytes)])
        }
        return Image(width: cropWidth, height: cropHeight, pixels: cropped)
    }
}
