import FuzzSupport

// The "disk-entry-file" fuzz target; the parser call and its seeds are FuzzTargets.diskEntryFile.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.diskEntryFile.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
