import Foundation

extension DemoState {
    // MARK: Annotations, in process

    /// Stores an audiobook position for a patron as another device would post it, and returns it.
    /// An idling annotation replaces the patron's earlier one for the work (keeping its number, as
    /// Palace does); a bookmark is added unless the same one is already there.
    /// Throws `DemoAnnotationError`, as the HTTP route would refuse the same annotation.
    @discardableResult
    public func postAnnotation(
        username: String,
        workID: String,
        motivation: DemoAnnotation.Motivation,
        readingOrderItem: String,
        offsetMilliseconds: Int,
        device: String = "urn:uuid:5f0d6d2e-0000-4000-8000-00000000d3e0",
        time: Date? = nil,
        name: String? = nil,
        deviceName: String? = nil,
        chapter: String = ""
    ) throws -> DemoAnnotation {
        guard !readingOrderItem.isEmpty, offsetMilliseconds >= 0 else {
            throw DemoAnnotationError.invalidFormat("A locator needs a readingOrderItem and a non-negative offset.")
        }
        let locator = AudiobookLocator(readingOrderItem: readingOrderItem, offsetMilliseconds: offsetMilliseconds)
        var body: [String: JSONValue] = [
            DemoAnnotation.chapterKey: .string(chapter),
            DemoAnnotation.deviceKey: .string(device),
            DemoAnnotation.timeKey: .string(DemoDates.iso8601(time ?? now)),
        ]
        // A bookmark's name, as shelf's clients write it (Palace's apps send none).
        if let name { body["http://librarysimplified.org/terms/bookmarkName"] = .string(name) }
        if let deviceName { body["http://librarysimplified.org/terms/deviceName"] = .string(deviceName) }
        return try store(username: username, workID: workID, motivation: motivation, selectorType: "oa:FragmentSelector",
                         selectorValue: locator.jsonString, locator: locator, body: body)
    }

    /// A patron's annotations, oldest first, of every work or of one.
    public func annotations(for username: String, workID: String? = nil) -> [DemoAnnotation] {
        annotationStore.filter { $0.username == username && (workID == nil || $0.workID == workID) }
    }

    /// Deletes one of a patron's annotations by number. Throws `DemoAnnotationError.notFound`.
    public func deleteAnnotation(username: String, number: Int) throws {
        guard let index = annotationStore.firstIndex(where: { $0.number == number && $0.username == username }) else {
            throw DemoAnnotationError.notFound("No annotation \(number) for this patron.")
        }
        annotationStore.remove(at: index)
    }

    /// Forgets every patron's annotations.
    public func removeAllAnnotations() {
        annotationStore.removeAll()
    }

    /// Makes the next annotations collection served start with a malformed annotation (nil turns it off).
    public func setMalformedAnnotation(_ kind: MalformedAnnotation?) {
        switches.malformedAnnotation = kind
    }

    /// The annotation's id as the server writes it: `<base>annotations/<number>`.
    public func annotationID(_ annotation: DemoAnnotation) -> String {
        renderer.base + "annotations/\(annotation.number)"
    }

    // MARK: Annotations over HTTP

    /// Stores an annotation document posted by a patron and returns the stored annotation.
    func postAnnotation(document bytes: [UInt8], username: String) throws -> DemoAnnotation {
        guard let document = JSONValue.parse(bytes)?.object else {
            throw DemoAnnotationError.invalidFormat("The annotation is not a JSON object.")
        }
        guard let motivationURI = document["motivation"]?.string else {
            throw DemoAnnotationError.invalidMotivation("The annotation has no motivation.")
        }
        guard let motivation = DemoAnnotation.Motivation(rawValue: motivationURI) else {
            throw DemoAnnotationError.invalidMotivation("The motivation \(motivationURI) is not supported.")
        }
        guard let target = document["target"]?.object, let source = target["source"]?.string else {
            throw DemoAnnotationError.invalidTarget("The annotation has no target source.")
        }
        guard let selector = target["selector"]?.object else {
            throw DemoAnnotationError.invalidFormat("The annotation's target has no selector.")
        }
        let selectorType = selector["type"]?.string ?? ""
        guard selectorType == "oa:FragmentSelector" || selectorType == "FragmentSelector" else {
            throw DemoAnnotationError.invalidFormat("The selector's type must be oa:FragmentSelector.")
        }
        guard let value = selector["value"]?.string else {
            throw DemoAnnotationError.invalidFormat("The selector's value must be a JSON string.")
        }
        let body: [String: JSONValue]
        switch document["body"] {
        case .none, .some(.null): body = [:]
        case .some(.object(let object)): body = object
        case .some: throw DemoAnnotationError.invalidFormat("The annotation's body must be a JSON object.")
        }
        let locator = try AudiobookLocator.parse(value).get()
        return try store(username: username, workID: source, motivation: motivation, selectorType: selectorType,
                         selectorValue: value, locator: locator, body: body)
    }

    private func store(
        username: String, workID: String, motivation: DemoAnnotation.Motivation, selectorType: String,
        selectorValue: String, locator: AudiobookLocator, body: [String: JSONValue]
    ) throws -> DemoAnnotation {
        settle()
        guard let patron = patrons.first(where: { $0.username == username }) else {
            throw DemoAnnotationError.unknownPatron("No patron \(username).")
        }
        guard synchronizesAnnotations(username) == true else {
            throw DemoAnnotationError.notOptedIn("The patron's profile says not to synchronize annotations.")
        }
        guard let title = catalog.title(id: workID) else {
            throw DemoAnnotationError.invalidTarget("No work has the id \(workID).")
        }
        let onLoan = patron.loans.contains { $0.titleID == workID && $0.kind == .loan }
        guard onLoan || title.license.openAccess else {
            throw DemoAnnotationError.invalidTarget("The patron has no loan of \(workID).")
        }
        var annotation = DemoAnnotation(
            number: nextAnnotationNumber, username: username, workID: workID, motivation: motivation,
            selectorValue: selectorValue, selectorType: selectorType, readingOrderItem: locator.readingOrderItem,
            offsetMilliseconds: locator.offsetMilliseconds, body: body
        )
        let sameWork = { (other: DemoAnnotation) in
            other.username == username && other.workID == workID && other.motivation == motivation
        }
        switch motivation {
        case .idling:
            if let index = annotationStore.firstIndex(where: sameWork) {
                annotation.number = annotationStore[index].number
                annotationStore[index] = annotation
                return annotation
            }
        case .bookmarking:
            if let existing = annotationStore.first(where: { sameWork($0) && $0.selectorValue == selectorValue }) {
                return existing
            }
        }
        nextAnnotationNumber += 1
        annotationStore.append(annotation)
        return annotation
    }

    /// A patron's annotations as a W3C annotation collection, of every work or of one; when the
    /// malformed switch is on, a malformed annotation comes first and the switch goes off.
    func annotationCollection(for username: String, workID: String?) -> Data {
        let collectionID = renderer.base + "annotations/" + (workID.map(percentEncoded) ?? "")
        var items = annotations(for: username, workID: workID).map { item($0) }
        if let kind = switches.malformedAnnotation {
            switches.malformedAnnotation = nil
            let source = workID ?? patrons.first { $0.username == username }?.loans.first { $0.kind == .loan }?.titleID
            items.insert(malformedItem(kind, source: source ?? "urn:uuid:00000000-0000-4000-8000-000000000000"), at: 0)
        }
        let collection = JSONValue.object([
            "@context": .array([.string("http://www.w3.org/ns/anno.jsonld"), .string("http://www.w3.org/ns/ldp.jsonld")]),
            "id": .string(collectionID),
            "type": .array([.string("BasicContainer"), .string("AnnotationCollection")]),
            "total": .number(Double(items.count)),
            "first": .object([
                "id": .string(collectionID),
                "type": .string("AnnotationPage"),
                "items": .array(items),
            ]),
        ])
        return collection.encoded(pretty: true)
    }

    /// One annotation of a patron as a standalone document (with `@context`), or nil.
    func annotationDocument(number: Int, username: String) -> Data? {
        guard let annotation = annotationStore.first(where: { $0.number == number && $0.username == username }),
              case .object(var document) = item(annotation) else { return nil }
        document["@context"] = .string("http://www.w3.org/ns/anno.jsonld")
        return JSONValue.object(document).encoded(pretty: true)
    }

    func item(_ annotation: DemoAnnotation) -> JSONValue {
        .object([
            "id": .string(annotationID(annotation)),
            "type": .string("Annotation"),
            "motivation": .string(annotation.motivation.rawValue),
            "body": .object(annotation.body),
            "target": .object([
                "source": .string(annotation.workID),
                "selector": .object([
                    "type": .string(annotation.selectorType),
                    "value": .string(annotation.selectorValue),
                ]),
            ]),
        ])
    }

    private func malformedItem(_ kind: MalformedAnnotation, source: String) -> JSONValue {
        func position(_ offset: String, item: String = "urn:org.thepalaceproject:readingOrderItem:0") -> String {
            #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":""# + item
                + #"","readingOrderItemOffsetMilliseconds":"# + offset + "}"
        }
        let value = switch kind {
        case .invalidLocator, .missingTarget: #"{"@type":"LocatorHrefProgression","progressWithinChapter":0.5}"#
        case .unparseableLocator: #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"#
        case .hugeOffset: position("1e20")
        case .offsetPastTheEnd: position("36000000")
        case .negativeOffset: position("-5000")
        case .nanOffset: position("NaN")
        case .wrongHref: position("1000", item: "another-book.mp3")
        case .otherBook, .hugeBody: position("1000")
        case .deepLocator:
            String(repeating: #"{"locator":"#, count: 10_000) + position("1000") + String(repeating: "}", count: 10_000)
        }
        var document: [String: JSONValue] = [
            "id": .string(renderer.base + "annotations/0"),
            "type": .string("Annotation"),
            "motivation": .string(DemoAnnotation.Motivation.idling.rawValue),
            "body": .object([
                DemoAnnotation.deviceKey: .string("urn:uuid:00000000-0000-4000-8000-0000000000bd"),
                DemoAnnotation.timeKey: .string(DemoDates.iso8601(now)),
            ]),
        ]
        if kind == .hugeBody {
            document["body"] = .object([
                DemoAnnotation.deviceKey: .string("urn:uuid:00000000-0000-4000-8000-0000000000bd"),
                DemoAnnotation.timeKey: .string(DemoDates.iso8601(now)),
                DemoAnnotation.chapterKey: .string(String(repeating: "x", count: 50 * 1_048_576)),
            ])
        }
        if kind != .missingTarget {
            document["target"] = .object([
                "source": .string(kind == .otherBook ? "urn:uuid:00000000-0000-4000-8000-00000000b00c" : source),
                "selector": .object(["type": .string("oa:FragmentSelector"), "value": .string(value)]),
            ])
        }
        return .object(document)
    }
}
