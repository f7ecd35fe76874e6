import Foundation
import Hummingbird

extension DemoState {
    /// A multi-part audiobook's sample (`/samples/{id}`): its first part's audio, served without a sign-in or a
    /// loan, as libraries serve a publisher's sample.
    func sample(_ id: String) async throws(DemoProblem) -> AudioResource {
        guard let title = catalog.title(id: id), title.medium == .audiobook, title.singleFile == nil, !title.draft,
            !samplesGone.contains(id)
        else { throw .notFound("no sample of \(id)") }
        stats.partRequests["\(id)/sample", default: 0] += 1
        let recipes = DemoAudio.recipes(for: id, partCount: configuration.partCount, partSeconds: configuration.partSeconds)
        let clips: [AudioRecipe: AudioClip]
        do { clips = try await audio.clips() } catch { throw .noAudio(error) }
        guard let first = recipes.first, let clip = clips[first] else { throw .notFound("no audio for the sample of \(id)") }
        return AudioResource(base: ByteBuffer(bytes: clip.bytes), contentType: "audio/mpeg", lastModified: audioModified)
    }

    /// The title whose sample is a Readium manifest of one part (the way some distributors link samples); every
    /// other audiobook's is its first part's audio itself.
    public static let manifestSampleID = "urn:uuid:7d3c0008-5a1e-4c6b-9f0e-d0c5e1f00008"

    /// The sample manifest of `manifestSampleID`: one part, the sample's audio, by a link relative to the manifest.
    func sampleManifest(_ id: String) throws(DemoProblem) -> String {
        guard id == Self.manifestSampleID, let title = catalog.title(id: id), !samplesGone.contains(id) else {
            throw .notFound("no sample manifest of \(id)")
        }
        let name = title.title.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return """
            {"@context": "https://readium.org/webpub-manifest/context.jsonld",
             "metadata": {"@type": "http://schema.org/Audiobook", "title": "\(name) (sample)"},
             "readingOrder": [{"href": "../\(id)", "type": "audio/mpeg", "title": "Sample"}]}
            """
    }

    /// Stops serving a title's sample (404), as when a publisher withdraws it.
    public func withdrawSample(_ id: String) { samplesGone.insert(id) }

    /// Requests for a title's sample so far.
    public func sampleRequestCount(_ id: String) -> Int { stats.partRequests["\(id)/sample"] ?? 0 }
}
