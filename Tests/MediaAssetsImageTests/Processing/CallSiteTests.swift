import MediaAssetsImage
import Testing

/// Compiles only if the static factories work with leading-dot syntax where a processor is expected.
@Suite struct CallSiteTests {
    private func identifier(of processor: some ImageProcessing) -> String { processor.identifier }
    private func identifiers(of processors: [any ImageProcessing]) -> [String] { processors.map(\.identifier) }

    @Test func leadingDotFactoriesCompose() {
        #expect(identifier(of: .resize(size: .square(4)).then(.circle())) == "resize(4x4,fill)>circle")
        #expect(
            identifier(of: .aspectFillCrop(size: .square(8)).then(.roundedRectangle(cornerRadius: 2)))
                == "resize(8x8,fill,crop,upscale)>rounded(r=2)")
        #expect(
            identifiers(of: [
                .resize(size: .square(4), contentMode: .aspectFit), .centerCrop(size: .square(2)), .circle(),
                .border(width: 1, color: .black, shape: .circle), .freeform(name: "noop") { $0 },
                .composition([.circle()]),
            ]) == [
                "resize(4x4,fit)", "crop(2x2)", "circle", "border(w=1,#000000ff,circle)", "freeform(noop)", "circle",
            ])
        #expect(identifier(of: AvatarStyle.circle(diameter: 96, borderWidth: 2)) == "circle(96,border=2,#ffffffff)")
    }
}
