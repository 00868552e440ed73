import CICU

#if canImport(Glibc)
import Glibc
#endif

/// One ICU number skeleton in one locale, from Debian's ICU: opened once, then used for
/// every number it formats ("percent", ".##", "measure-unit/duration-hour
/// unit-width-full-name"). Skeletons are ICU's (unicode-org.github.io/icu/userguide/format_parse/numbers/skeletons).
final class ICUNumberFormat {
    private let format: OpaquePointer

    /// nil when ICU refuses the locale or the skeleton.
    init?(locale: String, skeleton: String) {
        guard let format = icu_number_format_open(locale, skeleton) else { return nil }
        self.format = format
    }

    deinit { icu_number_format_close(format) }

    func string(_ value: Double) -> String? {
        Self.text { icu_number_format_double(format, value, $0, $1) }
    }

    /// A whole number of any size, formatted exactly (a Double loses the last digits of
    /// counts past 2^53).
    func string(_ value: UInt64) -> String? {
        Self.text { icu_number_format_decimal(format, String(value), $0, $1) }
    }

    /// What an ICU call writes into a buffer, as a String; nil when it failed.
    static func text(_ write: (UnsafeMutablePointer<CChar>, Int32) -> Int32) -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer in
            let length = write(buffer.baseAddress!, Int32(buffer.count))
            guard length >= 0 else { return nil }
            return String(
                decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(length)), as: UTF8.self)
        }
    }
}

/// CLDR's wide list of units in one locale ("2 hours, 2 minutes"), opened once.
final class ICUUnitList {
    private let list: OpaquePointer

    /// nil when ICU refuses the locale.
    init?(locale: String) {
        guard let list = icu_unit_list_open(locale) else { return nil }
        self.list = list
    }

    deinit { icu_unit_list_close(list) }

    func joined(_ items: [String]) -> String? {
        var pointers = items.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { items in
                ICUNumberFormat.text { icu_unit_list_join(list, items.baseAddress, Int32(items.count), $0, $1) }
            }
        }
    }
}
