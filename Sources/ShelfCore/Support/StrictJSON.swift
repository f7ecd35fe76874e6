import Foundation

/// A JSON value as the decoder reads it (a locator, a patron profile's settings): a number is never a Bool (on
/// Linux `JSONSerialization`'s 0 and 1 also cast to `Bool`, and its `true` to a number), so an offset of 0 ms is
/// read and `true` is refused.
enum StrictJSON: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([StrictJSON])
    case object([String: StrictJSON])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let object = try? container.decode([String: StrictJSON].self) {
            self = .object(object)
        } else {
            self = .array(try container.decode([StrictJSON].self))
        }
    }
}
