import Foundation
import Hummingbird

/// A token from `/works/{id}/fulfill`: it opens one work's manifest (or package) until it expires.
struct DemoFulfilmentGrant: Sendable {
    var username: String
    var titleID: String
    var expires: Date
}

/// A refusal on the fulfilment routes, written out as a problem document.
struct DemoProblem: Error, Sendable {
    var status: Int
    var type: String
    var title: String
    var detail: String
    var retryAfter: Int?
    var bearerChallenge = false

    static func notFound(_ detail: String) -> DemoProblem {
        DemoProblem(status: 404, type: "http://librarysimplified.org/terms/problem/not-found", title: "Not found", detail: detail)
    }

    static func noAudio(_ error: any Error) -> DemoProblem {
        DemoProblem(status: 500, type: "http://librarysimplified.org/terms/problem/remote-integration-failed",
                    title: "Audio unavailable", detail: "the demo library has no audio to serve: \(error)")
    }
}

/// How to send one part: the bytes, and the faults to apply while sending them.
struct PartDelivery: Sendable {
    var resource: AudioResource
    var dropAfterBytes: Int?
    var bytesPerSecond: Int?
    var extraContentLength: Int?
    /// Filler after the part's bytes for ever (see `AudioFaults.endless`).
    var endless = false
    /// The whole part for every request (see `AudioFaults.ignoresRanges`).
    var ignoresRanges = false
    /// Faults of the whole response, applied before any of the above.
    var response: PageFaults?
    /// `<title id>/<part number>`, the key of the part statistics.
    var statsKey: String
}

extension DemoState {
    // MARK: Fulfilment tokens

    /// Issues a fulfilment token for a work the patron has on loan: the token, its lifetime in
    /// seconds, and where it leads (the manifest, or the package for the packaged audiobook).
    func fulfil(_ id: String, as username: String) throws(DemoProblem) -> (token: String, lifetime: Int, location: String) {
        settle()
        guard let title = catalog.title(id: id) else { throw .notFound("no work with id \(id)") }
        guard title.medium == .audiobook else {
            throw .notFound("\(title.title) is an ebook; the demo library fulfils audiobooks only")
        }
        guard hasLoan(id, username) else {
            throw DemoProblem(status: 403, type: "http://librarysimplified.org/terms/problem/no-active-loan",
                              title: "No active loan.", detail: "You have no active loan for \(title.title); borrow it first.")
        }
        var random = SystemRandomNumberGenerator()
        let token = "f" + (0..<3).map { _ in
            let hex = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        let lifetime = max(0, configuration.fulfilmentTokenLifetime)
        fulfilmentGrants[token] = DemoFulfilmentGrant(username: username, titleID: id, expires: now.addingTimeInterval(lifetime))
        stats.fulfilmentTokensIssued += 1
        return (token, Int(lifetime.rounded()), fulfilmentLocation(id))
    }

    /// Where a fulfilment token leads: `manifests/{id}`, or `packages/{id}` for the packaged audiobook.
    func fulfilmentLocation(_ id: String) -> String {
        renderer.base + (id == configuration.packagedAudiobookID ? "packages/" : "manifests/") + percentEncoded(id)
    }

    private func hasLoan(_ id: String, _ username: String) -> Bool {
        patrons.first { $0.username == username }?.loans.contains { $0.titleID == id && $0.kind == .loan } ?? false
    }

    /// The work a request for its manifest or package may see, given the request's `Authorization`.
    func fulfilmentAccess(_ id: String, authorization: String?) throws(DemoProblem) -> DemoTitle {
        settle()
        let parts = authorization?.split(separator: " ", maxSplits: 1) ?? []
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw DemoProblem(status: 401, type: "http://palaceproject.io/terms/problem/auth/unrecoverable/invalid-credentials",
                              title: "Bearer token required.",
                              detail: "Send the access_token from the work's fulfil link as Authorization: Bearer.",
                              bearerChallenge: true)
        }
        guard let grant = fulfilmentGrants[String(parts[1]).trimmingCharacters(in: .whitespaces)] else {
            throw DemoProblem(status: 401, type: "http://palaceproject.io/terms/problem/auth/unrecoverable/invalid-credentials",
                              title: "Invalid bearer token.", detail: "The bearer token was not issued by this library.",
                              bearerChallenge: true)
        }
        guard grant.expires > now else {
            throw DemoProblem(status: 401, type: "http://palaceproject.io/terms/problem/auth/recoverable/token/expired",
                              title: "Expired bearer token.",
                              detail: "The fulfilment token has expired; fetch the work's fulfil link again.",
                              bearerChallenge: true)
        }
        guard grant.titleID == id, let title = catalog.title(id: id) else {
            throw DemoProblem(status: 403, type: "http://librarysimplified.org/terms/problem/forbidden",
                              title: "Wrong work.", detail: "This fulfilment token is for another work.")
        }
        guard hasLoan(id, grant.username) else {
            throw DemoProblem(status: 403, type: "http://librarysimplified.org/terms/problem/no-active-loan",
                              title: "No active loan.", detail: "The loan of \(title.title) has ended.")
        }
        return title
    }

    /// An open-access audiobook, whose manifest anyone may fetch.
    func openAccessAudiobook(_ id: String) throws(DemoProblem) -> DemoTitle {
        guard let title = catalog.title(id: id), title.license.openAccess, title.medium == .audiobook, !title.draft else {
            throw .notFound("no open-access audiobook with id \(id)")
        }
        return title
    }

    /// Expires every fulfilment token and every part link handed out so far, as if their time had come.
    public func expireFulfilment() {
        let now = self.now
        for token in fulfilmentGrants.keys { fulfilmentGrants[token]?.expires = now }
        partLinksExpiredThrough = max(partLinksExpiredThrough, latestPartLinkExpiry)
    }

    // MARK: Manifests and packages

    /// The parts of a work: their recipes, sizes and running times.
    private func parts(of title: DemoTitle) async throws(DemoProblem) -> [(clip: AudioClip, length: Int, duration: Double)] {
        let clips: [AudioRecipe: AudioClip]
        do { clips = try await audio.clips() } catch { throw .noAudio(error) }
        return try DemoAudio.recipes(
            for: title.id, partCount: configuration.partCount, partSeconds: configuration.partSeconds).map { recipe throws(DemoProblem) in
            guard let clip = clips[recipe] else { throw .noAudio(DemoAudioError(description: "no clip for \(recipe.fileName)")) }
            let length = configuration.partBytes.map { max(1, $0) } ?? clip.bytes.count
            return (clip, length, clip.duration * Double(length) / Double(clip.bytes.count))
        }
    }

    /// A work's manifest with signed, expiring part links.
    func manifest(for title: DemoTitle, self selfLink: String) async throws(DemoProblem) -> AudiobookManifest {
        let parts = try await parts(of: title)
        let expires = max(Int(now.timeIntervalSince1970 + configuration.partLinkLifetime), partLinksExpiredThrough + 1)
        latestPartLinkExpiry = max(latestPartLinkExpiry, expires)
        let hrefs = parts.indices.map { index in
            let path = partPath(title.id, index + 1)
            return renderer.base + path.dropFirst() + "?expires=\(expires)&sig=\(signature(path, expires))"
        }
        return AudiobookManifest.make(
            title,
            parts: zip(hrefs, parts).map { ($0, $1.duration) },
            links: [
                .init(href: selfLink, type: AudiobookManifest.mediaType, rel: "self"),
                .init(href: renderer.base + title.coverPath, type: "image/png", rel: "cover"),
            ],
            modified: title.updated,
            lengths: switches.manifestPartLengths ? parts.map(\.length) : nil
        )
    }

    /// The packaged audiobook: a stored zip of `manifest.json` and the parts, made once.
    func package(for title: DemoTitle) async throws(DemoProblem) -> AudioResource {
        if switches.damagedPackages {
            var junk = ByteBuffer(bytes: [0x50, 0x4B, 0x03, 0x04])
            junk.writeBytes((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            return AudioResource(base: junk, contentType: AudiobookManifest.packageMediaType, lastModified: audioModified)
        }
        if let zipped = packages[title.id] {
            return AudioResource(base: zipped, contentType: AudiobookManifest.packageMediaType, lastModified: audioModified)
        }
        let parts = try await parts(of: title)
        let names = parts.indices.map { "part-\($0 + 1).mp3" }
        let manifest = AudiobookManifest.make(
            title, parts: zip(names, parts).map { ($0, $1.duration) },
            links: [.init(href: "manifest.json", type: AudiobookManifest.mediaType, rel: "self")],
            modified: title.updated
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var archive = StoredZip()
        archive.add("manifest.json", Array((try? encoder.encode(manifest)) ?? Data()))
        for (name, part) in zip(names, parts) {
            archive.add(name, Array(AudioResource(base: ByteBuffer(bytes: part.clip.bytes), length: part.length,
                                                  contentType: "audio/mpeg", lastModified: audioModified)
                .slice(0..<part.length).readableBytesView))
        }
        let zipped = ByteBuffer(bytes: archive.finished())
        packages[title.id] = zipped
        return AudioResource(base: zipped, contentType: AudiobookManifest.packageMediaType, lastModified: audioModified)
    }

    // MARK: Parts

    /// `/audio/<id>/<n>.mp3`: stable across manifests, so a client can match parts by path.
    public func partPath(_ id: String, _ number: Int) -> String {
        "/audio/\(percentEncoded(id))/\(number).mp3"
    }

    /// A keyed FNV-1a over path and expiry: not cryptography, but no one can guess or extend a link.
    func signature(_ path: String, _ expires: Int) -> String {
        var hasher = FNV1a64()
        hasher.combine(String(signingKey, radix: 16) + "\n" + path + "\n" + String(expires))
        return String(hasher.entityTag.dropFirst().dropLast())
    }

    /// Decides how to answer a request for part `number` of a work, consuming "once" faults and counting it.
    func planPart(
        _ id: String, number: Int, expires: String?, signature given: String?, ranged: Bool
    ) async throws(DemoProblem) -> PartDelivery {
        guard let title = catalog.title(id: id), title.medium == .audiobook else { throw .notFound("no audiobook with id \(id)") }
        let key = "\(id)/\(number)"
        stats.partRequests[key, default: 0] += 1
        stats.partRequestOrder.append(key)
        if ranged { stats.partRangeRequests[key, default: 0] += 1 }
        let path = partPath(id, number)
        guard let given, let expiresText = expires, let expiry = Int(expiresText), given == signature(path, expiry) else {
            throw DemoProblem(status: 403, type: "http://librarysimplified.org/terms/problem/forbidden",
                              title: "Bad signature.", detail: "This part link is not signed by the library; fetch the manifest again.")
        }
        guard expiry > partLinksExpiredThrough, Double(expiry) > now.timeIntervalSince1970 else {
            throw DemoProblem(status: 410, type: "http://librarysimplified.org/terms/problem/link-expired",
                              title: "Link expired.", detail: "This part link has expired; fetch the manifest again.")
        }
        // The only suspension comes first, so the switches read below cannot change under us.
        let parts = try await parts(of: title)
        guard (1...parts.count).contains(number) else {
            throw .notFound("\(title.title) has parts 1 to \(parts.count)")
        }
        let part = parts[number - 1]
        let faultKey = switches.audioFaultKey(for: id)
        var faults = switches.audio[faultKey] ?? AudioFaults()
        if faults.missingParts.contains(number) { throw .notFound("part \(number) of \(title.title) is missing") }
        let applies = faults.applies(to: number)
        defer { switches.audio[faultKey] = faults.isEmpty ? nil : faults }
        if applies, faults.rateLimitOnce {
            faults.rateLimitOnce = false
            throw DemoProblem(status: 429, type: "http://librarysimplified.org/terms/problem/rate-limited",
                              title: "Too many requests.", detail: "Slow down and try again in a second.", retryAfter: 1)
        }
        var response: PageFaults?
        if applies, var switched = faults.response {
            let now = switched.take()
            faults.response = switched.isEmpty ? nil : switched
            if now.expiredToken {
                throw DemoProblem(status: 410, type: "http://librarysimplified.org/terms/problem/link-expired",
                                  title: "Link expired.", detail: "This part link has expired; fetch the manifest again.")
            }
            response = now
        }
        if applies, faults.failOnce {
            faults.failOnce = false
            throw DemoProblem(status: 500, type: "http://librarysimplified.org/terms/problem/remote-integration-failed",
                              title: "Internal server error.", detail: "The part switch is set to fail once.")
        }
        let resource = AudioResource(
            base: ByteBuffer(bytes: part.clip.bytes), length: part.length, changed: faults.changedParts.contains(number),
            contentType: "audio/mpeg", lastModified: audioModified
        )
        var delivery = PartDelivery(resource: resource, response: response, statsKey: key)
        if applies {
            delivery.dropAfterBytes = faults.dropAfterBytes
            if !faults.dropEveryTime { faults.dropAfterBytes = nil }
            delivery.bytesPerSecond = faults.bytesPerSecond
            delivery.extraContentLength = faults.extraContentLength
            delivery.endless = faults.endless
            delivery.ignoresRanges = faults.ignoresRanges
        }
        return delivery
    }

    func recordPartBytes(_ key: String, _ count: Int) {
        stats.partBytesSent[key, default: 0] += count
    }

    // MARK: Switches and statistics

    /// Sets (or, with empty faults, clears) the part faults of one work, or of every work when `id` is nil.
    public func setAudioFaults(_ faults: AudioFaults, for id: String? = nil) {
        switches.audio[id ?? "*"] = faults.isEmpty ? nil : faults
    }

    /// Requests for part `number` (from 1) of a work.
    public func partRequestCount(_ id: String, part number: Int) -> Int {
        stats.partRequests["\(id)/\(number)"] ?? 0
    }

    /// Requests for part `number` of a work that carried a `Range` header.
    public func partRangeRequestCount(_ id: String, part number: Int) -> Int {
        stats.partRangeRequests["\(id)/\(number)"] ?? 0
    }

    /// Body bytes of part `number` of a work written to the wire so far.
    public func partBytesSent(_ id: String, part number: Int) -> Int {
        stats.partBytesSent["\(id)/\(number)"] ?? 0
    }

    /// Makes the audio now, rather than on the first fulfilment; throws when ffmpeg cannot.
    public func prepareAudio() async throws {
        _ = try await audio.clips()
    }
}
