import Foundation

let table = BenchmarkTable()
print(BenchmarkTable.header)
try await runCoreBenchmarks(table: table)
