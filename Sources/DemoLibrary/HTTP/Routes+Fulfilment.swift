import Foundation
import Hummingbird

/// Audiobook fulfilment as at a Palace library: a bearer token from the loan's fulfil link, a
/// manifest (or package) behind it, and parts from signed, expiring links with byte ranges.
enum FulfilmentRoutes {
    static let bearerTokenType = "application/vnd.librarysimplified.bearer-token+json"

    struct BearerToken: Codable {
        var token_type: String
        var expires_in: Int
        var access_token: String
        var location: String
    }

    static func add(to router: Router<DemoRequestContext>, state: DemoState, configuration: DemoConfiguration) {
        let realm = configuration.libraryName
        router.get("/works/{id}/fulfill") { request, context in
            try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                do {
                    let issued = try await state.fulfil(LoansRoutes.id(context), as: username)
                    var response = try HTTPSupport.json(
                        BearerToken(token_type: "Bearer", expires_in: issued.lifetime, access_token: issued.token,
                                    location: issued.location),
                        contentType: bearerTokenType
                    )
                    response.headers[.cacheControl] = "private, no-store"
                    return response
                } catch let error as DemoProblem {
                    return problem(error)
                }
            }
        }
        router.get("/works/{id}/fulfill/open-access") { request, context in
            do {
                let title = try await state.openAccessAudiobook(LoansRoutes.id(context))
                let selfLink = await state.renderer.base + String(request.uri.path.dropFirst())
                return try manifestResponse(await state.manifest(for: title, self: selfLink))
            } catch let error as DemoProblem {
                return problem(error)
            }
        }
        router.get("/manifests/{id}") { request, context in
            do {
                let faults = await state.takeFaults(\.manifests)
                if faults.expiredToken {
                    throw DemoProblem(status: 401, type: "http://palaceproject.io/terms/problem/auth/recoverable/token/expired",
                                      title: "Expired bearer token.",
                                      detail: "The fulfilment token has expired; fetch the work's fulfil link again.",
                                      bearerChallenge: true)
                }
                let id = LoansRoutes.id(context)
                let title = try await state.fulfilmentAccess(id, authorization: request.headers[.authorization])
                let selfLink = await state.renderer.base + "manifests/" + percentEncoded(id)
                let manifest = try await state.manifest(for: title, self: selfLink)
                return try await FaultedResponse.answer(
                    faults, body: HTTPSupport.encoded(manifest), contentType: AudiobookManifest.mediaType,
                    headers: [.cacheControl: "private, no-store"], request: request, context: context
                ) ?? manifestResponse(manifest)
            } catch let error as DemoProblem {
                return problem(error)
            }
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/packages/{id}", method: method) { request, context in
                do {
                    let id = LoansRoutes.id(context)
                    let title = try await state.fulfilmentAccess(id, authorization: request.headers[.authorization])
                    guard id == configuration.packagedAudiobookID else {
                        throw DemoProblem.notFound("\(title.title) is fulfilled as a manifest, not a package")
                    }
                    let resource = try await state.package(for: title)
                    return serve(PartDelivery(resource: resource, statsKey: "\(id)/package"), request: request, state: state)
                } catch let error as DemoProblem {
                    return problem(error)
                }
            }
            router.on("/audio/{id}/{file}", method: method) { request, context in
                let file = context.parameters.get("file") ?? ""
                guard file.hasSuffix(".mp3"), let number = Int(file.dropLast(4)) else {
                    return HTTPSupport.notFound("no part \(file)")
                }
                do {
                    let query = request.uri.queryParameters
                    let delivery = try await state.planPart(
                        LoansRoutes.id(context), number: number,
                        expires: query["expires"].map(String.init), signature: query["sig"].map(String.init),
                        ranged: request.headers[.range] != nil
                    )
                    let resource = delivery.resource
                    if let faults = delivery.response, let faulted = await FaultedResponse.answer(
                        faults, body: resource.slice(0..<resource.length), contentType: resource.contentType,
                        request: request, context: context
                    ) {
                        return faulted
                    }
                    return serve(delivery, request: request, state: state)
                } catch let error as DemoProblem {
                    return problem(error)
                }
            }
        }
    }

    static func manifestResponse(_ manifest: AudiobookManifest) throws -> Response {
        var response = try HTTPSupport.json(manifest, contentType: AudiobookManifest.mediaType)
        response.headers[.cacheControl] = "private, no-store"
        return response
    }

    static func problem(_ error: DemoProblem) -> Response {
        var headers: HTTPFields = [:]
        if let seconds = error.retryAfter { headers[.retryAfter] = String(seconds) }
        if error.bearerChallenge { headers[.wwwAuthenticate] = "Bearer realm=\"fulfilment\"" }
        return HTTPSupport.problem(.init(code: error.status), type: error.type, title: error.title,
                                   detail: error.detail, headers: headers)
    }

    /// What a `Range` header asks of a representation of `length` bytes.
    enum RangeRequest: Equatable {
        case whole
        case partial(Range<Int>)
        case unsatisfiable
    }

    /// Reads a single byte range (`bytes=a-b`, `bytes=a-`, `bytes=-n`); several ranges, or anything
    /// malformed, is answered with the whole representation, as RFC 9110 §14.2 allows.
    static func byteRange(_ header: String?, length: Int) -> RangeRequest {
        guard let header, header.lowercased().hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return .whole }
        switch (Int(bounds[0]), Int(bounds[1])) {
        case (nil, let suffix?) where bounds[0].isEmpty:
            return suffix > 0 ? .partial(max(0, length - suffix)..<length) : .unsatisfiable
        case (let first?, nil) where bounds[1].isEmpty:
            return first < length ? .partial(first..<length) : .unsatisfiable
        case (let first?, let last?) where first <= last:
            return first < length ? .partial(first..<min(last + 1, length)) : .unsatisfiable
        default:
            return .whole
        }
    }

    /// Whether `If-Range` (absent, or naming the current representation) lets a range be honoured.
    static func ifRangeHolds(_ request: Request, _ resource: AudioResource) -> Bool {
        guard let condition = request.headers[.ifRange]?.trimmingCharacters(in: .whitespaces) else { return true }
        if condition.hasPrefix("\"") { return condition == resource.entityTag }
        if condition.hasPrefix("W/") { return false }
        return DemoDates.parseHTTP(condition) == resource.lastModified
    }

    /// Sends a part or package: validators, ranges, and the delivery's faults.
    static func serve(_ delivery: PartDelivery, request: Request, state: DemoState?) -> Response {
        let resource = delivery.resource
        let entityTag = resource.entityTag
        var headers: HTTPFields = [
            .contentType: resource.contentType,
            .eTag: entityTag,
            .lastModified: DemoDates.http(resource.lastModified),
            .acceptRanges: "bytes",
            .cacheControl: "private, max-age=3600",
        ]
        if request.headers[.ifNoneMatch] != nil || request.headers[.ifModifiedSince] != nil,
           HTTPSupport.isNotModified(request, entityTags: [entityTag], lastModified: resource.lastModified) {
            var response = Response(status: .notModified, headers: headers)
            response.headers[.contentType] = nil
            response.headers[.contentLength] = nil
            return response
        }
        var range = 0..<resource.length
        var status = HTTPResponse.Status.ok
        let requested = ifRangeHolds(request, resource) && !delivery.ignoresRanges
            ? byteRange(request.headers[.range], length: resource.length) : .whole
        switch requested {
        case .whole:
            break
        case .unsatisfiable:
            return HTTPSupport.problem(
                .rangeNotSatisfiable, type: "http://librarysimplified.org/terms/problem/range-not-satisfiable",
                title: "Range not satisfiable", detail: "the representation has \(resource.length) bytes",
                headers: [.contentRange: "bytes */\(resource.length)", .eTag: entityTag, .acceptRanges: "bytes"]
            )
        case .partial(let partial):
            range = partial
            status = .partialContent
            headers[.contentRange] = "bytes \(partial.lowerBound)-\(partial.upperBound - 1)/\(resource.length)"
        }
        let promised = range.count + max(0, delivery.extraContentLength ?? 0)
        // An endless part states no length unless a lie was asked for.
        let stated: Int? = delivery.endless && delivery.extraContentLength == nil ? nil : promised
        if request.method == .head {
            headers[.contentLength] = stated.map(String.init)
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        let sendRange = range
        let endless = delivery.endless
        let body = ResponseBody(contentLength: stated) { writer in
            let range = sendRange
            let dropAt = delivery.dropAfterBytes.map { min(max(0, $0), range.count) }
            let rate = delivery.bytesPerSecond.map { max(1, $0) }
            let chunkSize = rate.map { max(1, min(65_536, $0 / 20)) } ?? 65_536
            let started = ContinuousClock.now
            var sent = 0
            /// Counts `count` bytes written, and waits for the rate when there is one.
            func account(_ count: Int) async throws {
                sent += count
                await state?.recordPartBytes(delivery.statsKey, count)
                if let rate {
                    try await Task.sleep(until: started + .milliseconds(sent * 1_000 / rate), clock: .continuous)
                }
            }
            while range.lowerBound + sent < range.upperBound {
                var count = min(chunkSize, range.count - sent)
                if let dropAt {
                    if sent >= dropAt { break }
                    count = min(count, dropAt - sent)
                }
                let offset = range.lowerBound + sent
                try await writer.write(resource.slice(offset..<offset + count))
                try await account(count)
            }
            if endless {
                // Filler until the client hangs up: writing then throws, and ends this.
                let filler = ByteBuffer(repeating: 0x55, count: chunkSize)
                while true {
                    try await writer.write(filler)
                    try await account(chunkSize)
                }
            }
            // Throwing mid-body makes Hummingbird close the connection short of Content-Length.
            if sent < promised { throw CatalogRoutes.ConnectionDropped() }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
