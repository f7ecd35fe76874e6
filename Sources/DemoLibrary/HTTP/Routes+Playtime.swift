import Foundation
import Hummingbird

/// One minute of an audiobook heard, as a Palace app reports it to the `timeTracking` link of a loan.
public struct DemoPlaytimeEntry: Sendable, Equatable {
    public var username: String
    public var workID: String
    /// The entry's id, unique per minute reported: a second report of it is a duplicate.
    public var id: String
    /// The minute's start (UTC, on a minute boundary).
    public var minute: Date
    public var secondsPlayed: Int
}

/// Palace's playtime endpoint (`POST /playtimes/…`): time entries in, a 207 multi-status out, one status per entry:
/// 201 taken, 200 a duplicate already taken, 410 older than 120 days; the whole request is refused (400) when it
/// is not a list of entries with an id, a UTC minute and the seconds played (coerced to 0…60).
enum PlaytimeRoutes {
    static let oldestAcceptableDays = 120

    static func add(to router: Router<DemoRequestContext>, state: DemoState, configuration: DemoConfiguration) {
        let realm = configuration.libraryName
        router.post("/playtimes/{id}") { request, context in
            var request = request
            let bytes = Array(buffer: try await request.collectBody(upTo: context.maxUploadSize))
            let workID = LoansRoutes.id(context)
            return try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                guard await state.title(id: workID) != nil else {
                    return HTTPSupport.notFound("The identifier \(workID) was not found.")
                }
                let entries: [Entry]
                switch parse(bytes) {
                case .success(let parsed): entries = parsed
                case .failure(let invalid):
                    return HTTPSupport.problem(.badRequest, type: "http://librarysimplified.org/terms/problem/invalid-input",
                                               title: "Invalid input.", detail: invalid.reason)
                }
                if await state.playtimeUnavailable {
                    return HTTPSupport.problem(.serviceUnavailable, type: "http://librarysimplified.org/terms/problem/remote-integration-failed",
                                               title: "Failure contacting external service", detail: "Try again later.")
                }
                let now = Date()
                var responses: [JSONValue] = []
                var successes = 0
                for entry in entries {
                    let status: Int
                    let message: String
                    if now.timeIntervalSince(entry.minute) > Double(oldestAcceptableDays + 1) * 86_400 {
                        (status, message) = (410, "Time entry too old and can no longer be processed")
                    } else if await state.recordPlaytime(DemoPlaytimeEntry(
                        username: username, workID: workID, id: entry.id, minute: entry.minute, secondsPlayed: entry.seconds))
                    {
                        (status, message) = (201, "Created")
                    } else {
                        // A duplicate is reported as a success: the minute is already counted.
                        (status, message) = (200, "OK")
                    }
                    if status < 300 { successes += 1 }
                    responses.append(.object(["id": .string(entry.id), "status": .number(Double(status)), "message": .string(message)]))
                }
                let body: JSONValue = .object([
                    "responses": .array(responses),
                    "summary": .object([
                        "total": .number(Double(entries.count)), "successes": .number(Double(successes)),
                        "failures": .number(Double(entries.count - successes)),
                    ]),
                ])
                return HTTPSupport.response(ByteBuffer(data: body.encoded(pretty: false)),
                                            status: HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status"),
                                            contentType: "application/json")
            }
        }
    }

    struct InvalidInput: Error {
        var reason: String
    }

    struct Entry {
        var id: String
        var minute: Date
        var seconds: Int
    }

    /// The entries of a request, whose keys come in camelCase (Palace's apps) or snake_case.
    static func parse(_ bytes: [UInt8]) -> Result<[Entry], InvalidInput> {
        guard let root = JSONValue.parse(bytes)?.object else { return .failure(InvalidInput(reason: "The body is not a JSON object.")) }
        guard case .array(let items)? = root["timeEntries"] ?? root["time_entries"] else {
            return .failure(InvalidInput(reason: "timeEntries: field required"))
        }
        var entries: [Entry] = []
        for item in items {
            guard let object = item.object, let id = object["id"]?.string else { return .failure(InvalidInput(reason: "id: field required")) }
            guard let text = (object["duringMinute"] ?? object["during_minute"])?.string, let minute = minute(text) else {
                return .failure(InvalidInput(reason: "duringMinute: Timezone MUST be UTC always, on a minute (yyyy-mm-ddThh:mmZ)"))
            }
            guard case .number(let seconds)? = object["secondsPlayed"] ?? object["seconds_played"] else {
                return .failure(InvalidInput(reason: "secondsPlayed: field required"))
            }
            entries.append(Entry(id: id, minute: minute, seconds: min(60, max(0, Int(seconds)))))
        }
        return .success(entries)
    }

    /// `2026-11-28T01:23Z` (or with seconds, `…:00Z`), truncated to its minute; nil when not UTC.
    static func minute(_ text: String) -> Date? {
        for candidate in [text, text.replacingOccurrences(of: "Z", with: ":00Z")] where candidate.hasSuffix("Z") {
            if let date = ISO8601DateFormatter().date(from: candidate) {
                return Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
            }
        }
        return nil
    }
}

extension DemoState {
    /// Makes the playtime endpoint answer 503 to every request, or mends it.
    public func setPlaytimeUnavailable(_ unavailable: Bool) {
        playtimeUnavailable = unavailable
    }

    /// Takes a playtime entry unless one with its id was taken before; returns whether it was new.
    func recordPlaytime(_ entry: DemoPlaytimeEntry) -> Bool {
        guard !playtimeEntries.contains(where: { $0.id == entry.id }) else { return false }
        playtimeEntries.append(entry)
        return true
    }
}
