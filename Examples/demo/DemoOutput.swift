import ExampleSupport
import Foundation
import MediaAssetsImage

/// Writes the styled avatars and a contact sheet of them.
enum DemoOutput {
    static func write(_ styled: [(row: AvatarListRow, image: Image)], to directory: URL) throws {
        let avatars = directory.appendingPathComponent("avatars", isDirectory: true)
        for (row, image) in styled {
            let name = String(format: "user-%02d-%@.png", row.userNumber, row.styleName)
            try ExampleDirectories.write(try ImageEncoder.png.encode(image), to: avatars.appendingPathComponent(name))
        }
        let ordered = styled.sorted { ($0.row.userNumber, $0.row.styleIndex) < ($1.row.userNumber, $1.row.styleIndex) }
        print("Output")
        print("  avatars        \(styled.count) styled PNGs in \(avatars.path)")
        guard let sheet = ContactSheet.compose(ordered.map(\.image), columns: 12) else { return }
        let sheetFile = directory.appendingPathComponent("contact-sheet.png")
        try ExampleDirectories.write(try ImageEncoder.png.encode(sheet), to: sheetFile)
        print("  contact sheet  \(sheetFile.path) (\(sheet.width)x\(sheet.height))")
    }
}
