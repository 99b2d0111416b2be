import Foundation

extension GIFWriter {
    /// A looping GIF of `frameCount` frames, each covering the whole `side`×`side` canvas with diagonal bands
    /// of 16 colours moved one pixel further per frame (40 ms each): every frame differs and every pixel is
    /// drawn, yet the file stays small. The fixture of the frame-window tests, memory probe and benchmarks.
    package func bands(side: Int, frameCount: Int) throws -> Data {
        let palette = (0..<16).map { (step: Int) -> RGBA in
            RGBA(red: UInt8(step * 17), green: UInt8(255 - step * 17), blue: UInt8(step * 8))
        }
        // Row y of frame f is `pattern[(y + f)...]`: one line of indices serves every row of every frame.
        var pattern = (0..<(2 * side + frameCount)).map { UInt8($0 / 8 % 16) }
        return try write { file, put in
            try put.screen(file, side, side, palette)
            try put.netscape(file, 0)
            for frame in 0..<frameCount {
                let control: [UInt8] = [0b0000_0100, 4, 0, 0]  // keep, 4 hundredths, no transparency
                try check(putExtension(file, 0xF9, 4, control), "graphics control")
                try check(imageDescription(file, 0, 0, Int32(side), Int32(side), false, nil), "image description")
                try pattern.withUnsafeMutableBufferPointer { line in
                    for row in 0..<side {
                        try check(self.line(file, line.baseAddress! + row + frame, Int32(side)), "line \(row)")
                    }
                }
            }
        }
    }
}
