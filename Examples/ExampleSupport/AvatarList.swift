import MediaAssetsImage

/// One row of a contact list: a user's avatar in the style the row shows it.
public struct AvatarListRow: Sendable {
    /// The row's position, from 0.
    public let index: Int
    /// The user whose avatar the row shows, from 1.
    public let userNumber: Int
    /// The style's position in `AvatarList.styles`.
    public let styleIndex: Int

    /// The style's short name.
    public var styleName: String { AvatarList.styles[styleIndex].name }
    /// The style.
    public var style: AvatarStyle { AvatarList.styles[styleIndex].style }
}

/// The Navi article's list: many rows, few users, a few avatar styles, scrolled a page at a time.
public enum AvatarList {
    /// The three styles of the list: a bordered circle, a rounded square, a small square.
    public static let styles: [(name: String, style: AvatarStyle)] = [
        ("circle", .circle(diameter: 96, borderWidth: 3, borderColor: .white)),
        ("rounded", .roundedRectangle(size: .square(128), cornerRadius: 20)),
        ("square", .rectangle(size: .square(64))),
    ]

    /// `count` rows over `userCount` users: row `i` shows user `i % userCount + 1` in style
    /// `(i / userCount) % 3`, so every user appears in every style, then again from memory.
    public static func rows(count: Int = 200, userCount: Int = 40) -> [AvatarListRow] {
        let userCount = max(1, userCount)
        return (0..<max(0, count)).map { index in
            AvatarListRow(
                index: index, userNumber: index % userCount + 1, styleIndex: (index / userCount) % styles.count
            )
        }
    }

    /// Loads the rows a page at a time, as a list scrolls: the rows of a page concurrently, the
    /// pages one after another; `pageDone` runs after each page with its number and row range.
    ///
    /// - Returns: the loaded values in row order.
    public static func scroll<Value: Sendable>(
        _ rows: [AvatarListRow],
        pageSize: Int = 20,
        load: @escaping @Sendable (AvatarListRow) async throws -> Value,
        pageDone: (_ page: Int, _ rows: Range<Int>) async -> Void = { _, _ in }
    ) async throws -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(rows.count)
        var start = 0
        var page = 1
        while start < rows.count {
            let pageRows = Array(rows[start..<min(rows.count, start + max(1, pageSize))])
            let loaded = try await withThrowingTaskGroup(of: (Int, Value).self) { group in
                for (offset, row) in pageRows.enumerated() {
                    group.addTask { (offset, try await load(row)) }
                }
                var results: [(Int, Value)] = []
                for try await result in group { results.append(result) }
                return results.sorted { $0.0 < $1.0 }.map(\.1)
            }
            values += loaded
            await pageDone(page, start..<(start + pageRows.count))
            start += pageRows.count
            page += 1
        }
        return values
    }
}
