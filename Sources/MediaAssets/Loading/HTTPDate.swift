import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads HTTP dates (RFC 9110 §5.6.7) in the three forms a recipient must accept:
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (a two-digit year more than 50 years ahead of `now` is
///   read as the most recent such year in the past)
/// - asctime: `Sun Nov  6 08:49:37 1994`
///
/// Anything else, including a day that does not exist (`31 Feb`), is `nil`: for `Expires` that means
/// "already expired". Calendar arithmetic is `timegm`'s; this type only reads the fields.
enum HTTPDate {
    private static let shortWeekdays: Set<Substring> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longWeekdays: Set<Substring> = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let months: [Substring] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The date `text` names, or `nil` when it is not an HTTP date.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let fields = text.split(separator: " ")
        switch fields.count {
        case 6:
            // IMF-fixdate: day-name "," SP day SP month SP year SP time SP "GMT"
            guard fields[0].count == 4, fields[0].last == ",", shortWeekdays.contains(fields[0].dropLast()),
                fields[5] == "GMT", fields[1].count == 2, fields[3].count == 4,
                let day = number(fields[1]), let year = number(fields[3])
            else { return nil }
            return date(year: year, month: fields[2], day: day, time: fields[4])
        case 4:
            // rfc850-date: day-name-l "," SP day "-" month "-" 2DIGIT SP time SP "GMT"
            let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false)
            guard fields[0].last == ",", longWeekdays.contains(fields[0].dropLast()), fields[3] == "GMT",
                parts.count == 3, parts[0].count == 2, parts[2].count == 2,
                let day = number(parts[0]), let shortYear = number(parts[2])
            else { return nil }
            return date(year: fullYear(shortYear, now: now), month: parts[1], day: day, time: fields[2])
        case 5:
            // asctime-date: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time SP year
            guard shortWeekdays.contains(fields[0]), (1...2).contains(fields[2].count), fields[4].count == 4,
                let day = number(fields[2]), let year = number(fields[4])
            else { return nil }
            return date(year: year, month: fields[1], day: day, time: fields[3])
        default:
            return nil
        }
    }

    /// `hh:mm:ss` on the given day, checked to exist (timegm would roll `31 Feb` into March).
    private static func date(year: Int, month monthName: Substring, day: Int, time: Substring) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let month = months.firstIndex(of: monthName), clock.count == 3,
            clock.allSatisfy({ $0.count == 2 }), let hour = number(clock[0]), let minute = number(clock[1]),
            let second = number(clock[2]), hour < 24, minute < 60, second <= 60, (1...31).contains(day),
            (1...9999).contains(year)
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        // A leap second (:60) is read as :59, so it cannot roll the day over.
        parts.tm_sec = Int32(min(second, 59))
        var seconds = timegm(&parts)
        var check = tm()
        guard gmtime_r(&seconds, &check) != nil, check.tm_mday == Int32(day), check.tm_mon == Int32(month) else {
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Digits only (no sign, no spaces), at most 4 of them.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 4 else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// RFC 9110: a two-digit year that would be more than 50 years in the future is in the past century.
    private static func fullYear(_ shortYear: Int, now: Date) -> Int {
        var seconds = time_t(now.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        let currentYear = gmtime_r(&seconds, &parts) != nil ? Int(parts.tm_year) + 1900 : 2000
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        return year
    }
}
