func runCoreBenchmarks(table: BenchmarkTable) async throws {}
