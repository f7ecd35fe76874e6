import DemoLibrary
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct AudioPartTests {
    @Test func validatorsAndByteRanges() async throws {
        try await withServer { _, url in
            let part = partURL(try await fulfilledManifest(url), 1)
            let whole = try await HTTPTestClient.get(part)
            let size = whole.body.count
            let tag = try #require(whole.header("ETag"))
            #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
            #expect(whole.header("Accept-Ranges") == "bytes")
            #expect(whole.header("Content-Length") == String(size))
            let modified = try #require(whole.header("Last-Modified"))

            let first = try await HTTPTestClient.get(part, headers: ["Range": "bytes=0-99"])
            #expect(first.status == 206)
            #expect(first.header("Content-Range") == "bytes 0-99/\(size)")
            #expect(first.body == Array(whole.body[0..<100]))
            let rest = try await HTTPTestClient.get(part, headers: ["Range": "bytes=100-"])
            #expect(rest.status == 206)
            #expect(first.body + rest.body == whole.body)
            let tail = try await HTTPTestClient.get(part, headers: ["Range": "bytes=-10"])
            #expect(tail.header("Content-Range") == "bytes \(size - 10)-\(size - 1)/\(size)")
            #expect(tail.body == Array(whole.body.suffix(10)))
            let past = try await HTTPTestClient.get(part, headers: ["Range": "bytes=\(size)-"])
            #expect(past.status == 416)
            #expect(past.header("Content-Range") == "bytes */\(size)")

            let same = try await HTTPTestClient.get(part, headers: ["Range": "bytes=10-19", "If-Range": tag])
            #expect(same.status == 206 && same.body == Array(whole.body[10..<20]))
            let byDate = try await HTTPTestClient.get(part, headers: ["Range": "bytes=10-19", "If-Range": modified])
            #expect(byDate.status == 206)
            let stale = try await HTTPTestClient.get(part, headers: ["Range": "bytes=10-19", "If-Range": "\"0000\""])
            #expect(stale.status == 200 && stale.body == whole.body)

            let cached = try await HTTPTestClient.get(part, headers: ["If-None-Match": tag])
            #expect(cached.status == 304)
            let head = try await HTTPTestClient.send("HEAD", part, headers: [:], body: nil)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String(size))
            #expect(head.header("ETag") == tag)
            #expect(head.body.isEmpty)
        }
    }

    @Test func largeModeServesPartsOfTheConfiguredSize() async throws {
        try await withServer(DemoConfiguration(partBytes: 3_000_000, partCount: 3)) { _, url in
            let manifest = try await fulfilledManifest(url)
            #expect(manifest.readingOrder.count == 3)
            let part = partURL(manifest, 2)
            let whole = try await HTTPTestClient.get(part)
            #expect(whole.status == 200)
            #expect(whole.body.count == 3_000_000)
            #expect(whole.body.starts(with: Array("ID3".utf8)))
            let end = try await HTTPTestClient.get(part, headers: ["Range": "bytes=2999990-"])
            #expect(end.body == Array(whole.body.suffix(10)))
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct AudioFaultTests {
    @Test func dropOnceThenResumeWithARange() async throws {
        try await withServer { server, url in
            let part = partURL(try await fulfilledManifest(url), 1)
            await server.state.setAudioFaults(AudioFaults(dropAfterBytes: 1_000), for: Works.onLoan)
            let dropped = try await HTTPTestClient.get(part)
            #expect(dropped.status == 200)
            #expect(dropped.cutShort)
            #expect(dropped.body.count == 1_000)
            let resumed = try await HTTPTestClient.get(part, headers: ["Range": "bytes=1000-"])
            #expect(resumed.status == 206)
            let whole = try await HTTPTestClient.get(part)
            #expect(dropped.body + resumed.body == whole.body)
            #expect(await server.state.partRequestCount(Works.onLoan, part: 1) == 3)
            #expect(await server.state.partRangeRequestCount(Works.onLoan, part: 1) == 1)
            #expect(await server.state.partBytesSent(Works.onLoan, part: 1) == 1_000 + resumed.body.count + whole.body.count)
        }
    }

    @Test func dropEveryTimeOnlyOnTheChosenPart() async throws {
        try await withServer { server, url in
            let manifest = try await fulfilledManifest(url)
            await server.state.setAudioFaults(AudioFaults(parts: [2], dropAfterBytes: 500, dropEveryTime: true))
            for _ in 0..<2 { #expect(try await HTTPTestClient.get(partURL(manifest, 2)).cutShort) }
            #expect(!(try await HTTPTestClient.get(partURL(manifest, 1)).cutShort))
        }
    }

    @Test func failOnceAndRateLimitOnce() async throws {
        try await withServer { server, url in
            let part = partURL(try await fulfilledManifest(url), 1)
            await server.state.setAudioFaults(AudioFaults(failOnce: true, rateLimitOnce: true))
            let limited = try await HTTPTestClient.get(part)
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "1")
            #expect(try await HTTPTestClient.get(part).status == 500)
            #expect(try await HTTPTestClient.get(part).status == 200)
            #expect(await server.state.switches.audio.isEmpty)
        }
    }

    @Test func slowPartsAreCappedPerConnection() async throws {
        try await withServer { server, url in
            let part = partURL(try await fulfilledManifest(url), 1)
            await server.state.setAudioFaults(AudioFaults(bytesPerSecond: 40_000))
            let clock = ContinuousClock()
            let started = clock.now
            let slow = try await HTTPTestClient.get(part)
            let elapsed = clock.now - started
            #expect(slow.status == 200 && !slow.cutShort)
            // About 12 kB at 40 kB/s.
            #expect(elapsed >= .milliseconds(200))
        }
    }

    @Test func changedPartHasNewBytesAndETag() async throws {
        try await withServer { server, url in
            let part = partURL(try await fulfilledManifest(url), 1)
            let before = try await HTTPTestClient.get(part)
            await server.state.setAudioFaults(AudioFaults(changedParts: [1]), for: Works.onLoan)
            let after = try await HTTPTestClient.get(part)
            #expect(after.header("ETag") != before.header("ETag"))
            #expect(after.header("Last-Modified") != before.header("Last-Modified"))
            #expect(after.body.count == before.body.count && after.body != before.body)
            #expect(after.body.dropLast() == before.body.dropLast())
            let resumed = try await HTTPTestClient.get(part, headers: [
                "Range": "bytes=100-", "If-Range": before.header("ETag") ?? "",
            ])
            #expect(resumed.status == 200)
            #expect(resumed.body == after.body)
        }
    }

    @Test func wrongContentLengthAndMissingPart() async throws {
        try await withServer { server, url in
            let manifest = try await fulfilledManifest(url)
            let whole = try await HTTPTestClient.get(partURL(manifest, 1))
            await server.state.setAudioFaults(AudioFaults(extraContentLength: 10, missingParts: [2]), for: Works.onLoan)
            let short = try await HTTPTestClient.get(partURL(manifest, 1))
            #expect(short.header("Content-Length") == String(whole.body.count + 10))
            #expect(short.cutShort)
            #expect(short.body == whole.body)
            let missing = try await HTTPTestClient.get(partURL(manifest, 2))
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/api-problem+json")
        }
    }

    @Test func faultsAreSetThroughTheSwitchesRoute() async throws {
        try await withServer { server, url in
            let part = partURL(try await fulfilledManifest(url), 1)
            let set = try await HTTPTestClient.post(url.path("_demo/switches"), json: #"{"audio":{"*":{"failOnce":true}}}"#)
            #expect(set.status == 200)
            #expect(await server.state.switches.audio["*"]?.failOnce == true)
            #expect(try await HTTPTestClient.get(part).status == 500)
            let perTitle = try await HTTPTestClient.post(url.path("_demo/titles/\(Works.onLoan)/audio-faults"),
                                                         json: #"{"missingParts":[1]}"#)
            #expect(perTitle.status == 200)
            #expect(try await HTTPTestClient.get(part).status == 404)
        }
    }
}
