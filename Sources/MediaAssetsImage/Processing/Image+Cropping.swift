extension Image {
    /// The centred `width × height` part of this image (each side clamped to the image's).
    func centerCropped(width: Int, height: Int) -> Image {
        let cropWidth = min(max(width, 1), self.width)
        let cropHeight = min(max(height, 1), self.height)
        guard cropWidth != self.width || cropHeight != self.height else { return self }
        let left = (self.width - cropWidth) / 2
        let top = (self.height - cropHeight) / 2
        let rowBytes = cropWidth * 4
        var cropped = [UInt8]()
        cropped.reserveCapacity(rowBytes * cropHeight)
        for row in top..<(top + cropHeight) {
            let start = (row * self.width + left) * 4
            cropped.append(contentsOf: pixels[start..<(start + rowBytes)])
        }
        return Image(width: cropWidth, height: cropHeight, pixels: cropped)
    }
}
