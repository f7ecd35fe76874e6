import Foundation
import Hummingbird

extension DemoState {
    /// The one file of a single-file work (`/files/{id}/book.m4b`…): made by ffmpeg, or zipped from the chapter
    /// clips, on first request, and the same bytes after.
    func singleFile(_ id: String, name: String) async throws(DemoProblem) -> AudioResource {
        guard let title = catalog.title(id: id), let file = title.singleFile, !title.draft else {
            throw .notFound("no single-file audiobook with id \(id)")
        }
        guard name == file.fileName else { throw .notFound("\(title.title) is served as \(file.fileName)") }
        let key = "\(id)/\(file.fileName)"
        stats.partRequests[key, default: 0] += 1
        if let made = packages[key] {
            return AudioResource(base: made, contentType: renderer.plainFiles ? "application/octet-stream" : file.format.mediaType, lastModified: audioModified)
        }
        let bytes: [UInt8]
        do {
            if file.format == .zip {
                bytes = try await zipOfFiles(title, file)
            } else {
                bytes = try await audio.singleFile(SingleFileRecipe(title, file)).bytes
            }
        } catch {
            throw .noAudio(error)
        }
        let buffer = ByteBuffer(bytes: bytes)
        packages[key] = buffer
        return AudioResource(base: buffer, contentType: renderer.plainFiles ? "application/octet-stream" : file.format.mediaType, lastModified: audioModified)
    }

    /// A zip with one mp3 per chapter, named for their order, and a note that is not audio; no manifest.
    private func zipOfFiles(_ title: DemoTitle, _ file: SingleFile) async throws -> [UInt8] {
        let clips = try await audio.clips()
        let recipes = DemoAudio.recipes(for: title.id, partCount: file.chapters.count, partSeconds: configuration.partSeconds)
        var archive = StoredZip()
        archive.add("About this recording.txt", Array("\(title.title), read for the shelf demo library.\n".utf8))
        for (index, (recipe, chapter)) in zip(recipes, file.chapters).enumerated() {
            guard let clip = clips[recipe] else { throw DemoAudioError(description: "no clip for \(recipe.fileName)") }
            archive.add("\(index + 1) - \(chapter).mp3", clip.bytes)
        }
        return archive.finished()
    }
}

extension DemoState {
    /// Serves `bytes` as a single-file work's file from now on (a damaged file, a hostile zip), for the client's tests.
    public func replaceSingleFile(_ id: String, with bytes: [UInt8]) throws {
        guard let file = catalog.title(id: id)?.singleFile else { throw DemoLibraryError.unknownTitle(id) }
        packages["\(id)/\(file.fileName)"] = ByteBuffer(bytes: bytes)
    }

    /// Requests for a single-file work's file so far.
    public func singleFileRequestCount(_ id: String) -> Int {
        guard let file = catalog.title(id: id)?.singleFile else { return 0 }
        return stats.partRequests["\(id)/\(file.fileName)"] ?? 0
    }
}
