import CDynamicCodecs

/// A GIF colour table as opaque RGBA.
struct GIFPalette {
    let colors: [RGBA]

    /// The table giflib read, or `nil` when the file has none there.
    init?(_ map: UnsafeMutablePointer<ma_gif_color_map>?) {
        guard let map, let entries = map.pointee.Colors, map.pointee.ColorCount > 0 else { return nil }
        let count = min(256, Int(map.pointee.ColorCount))
        colors = (0..<count).map { RGBA(red: entries[$0].Red, green: entries[$0].Green, blue: entries[$0].Blue) }
    }

    private init(colors: [RGBA]) { self.colors = colors }

    /// The table of a frame that has neither a local nor a global one (GIF89a allows it; the spec leaves the
    /// colours to the decoder): index n is the grey (n, n, n), as if the frame were greyscale.
    ///
    /// Browsers disagree (Chromium's Wuffs paints every index black, Firefox every index white), so no choice
    /// matches them all; a grey ramp keeps distinct indices distinct, and its first entry is the spec's
    /// suggested black.
    static let greyscale = GIFPalette(colors: (0...255).map { RGBA(red: UInt8($0), green: UInt8($0), blue: UInt8($0)) })
}
