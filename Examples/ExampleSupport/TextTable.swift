/// Plain aligned columns for terminal output: the first column left-aligned, the rest right-aligned.
public struct TextTable: Sendable {
    /// The header cells.
    public var header: [String]
    /// The rows, each with as many cells as the header.
    public var rows: [[String]] = []
    /// Spaces before every line.
    public var indent: Int

    /// Creates a table with `header`.
    public init(header: [String], indent: Int = 2) {
        self.header = header
        self.indent = indent
    }

    /// Appends a row (missing cells are empty).
    public mutating func add(_ cells: [String]) {
        rows.append(cells)
    }

    /// The table's lines.
    public var lines: [String] {
        let all = [header] + rows
        let columnCount = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columnCount)
        for row in all {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        let margin = String(repeating: " ", count: indent)
        return all.map { row in
            var line = margin
            for column in 0..<columnCount {
                let cell = column < row.count ? row[column] : ""
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column == 0 {
                    line += cell + padding
                } else {
                    line += "  " + padding + cell
                }
            }
            return line
        }
    }

    /// Prints the table.
    public func print() {
        for line in lines { Swift.print(line) }
    }
}
