// cache-writer: the helper process of the multi-process and crash-consistency tests.
//
//   cache-writer write  --backend disk|sqlite --path P --writer W --keys K --size-limit L [--rounds R]
//                       [--pin-every N] [--remove-every N]
//   cache-writer verify --backend disk|sqlite --path P --writers N --keys K --size-limit L [--require-all]
//                       [--pin-every N]
//
// `write` stores deterministic, self-describing entries under "w<W>-k<i>" as fast as it can, round
// after round (forever without --rounds), appending "i version" to P.ack-<W> after each store
// returns; it resumes from that log, so each key's versions only grow across restarts. `verify`
// reopens the cache and checks every key: absent, or holding exactly the bytes of a version no
// older than the last acknowledged one and at most one newer (the store in flight at a kill) —
// never wrong, torn or stale; and the size limit holds, and for a disk cache the count and bytes it
// reports agree with the entry files in its directory. It prints a summary; exit status 1 on any failure.
import Foundation
import MediaAssets
import MediaAssetsSQLite

let arguments = WriterArguments(CommandLine.arguments)
do {
    switch arguments.mode {
    case "write": try await runWriter(arguments)
    case "verify": exit(try await runVerifier(arguments) ? 0 : 1)
    default: throw WriterFailure("the first argument must be write or verify")
    }
} catch {
    FileHandle.standardError.write(Data("cache-writer: \(error)\n".utf8))
    exit(2)
}
