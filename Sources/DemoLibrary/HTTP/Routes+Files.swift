import Foundation
import Hummingbird

/// Single-file audiobooks, served as calibre serves its books: a plain GET (with ranges and validators) of the
/// file, no sign-in, no loan; and the samples of the others.
enum FileRoutes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/files/{id}/{name}", method: method) { request, context in
                do {
                    let id = LoansRoutes.id(context)
                    let name = context.parameters.get("name") ?? ""
                    let resource = try await state.singleFile(id, name: name)
                    var delivery = PartDelivery(resource: resource, statsKey: "\(id)/\(name)")
                    // The parts' throttle, as a slow server sends a whole book's file.
                    let switches = await state.switches
                    let faults = switches.audio[switches.audioFaultKey(for: id)]
                    delivery.bytesPerSecond = faults?.bytesPerSecond
                    // A plain web server's faults too: an error page where the file should be, a status…
                    if let response = faults?.response, let faulted = await FaultedResponse.answer(
                        response, body: resource.slice(0..<resource.length), contentType: resource.contentType,
                        request: request, context: context
                    ) {
                        return faulted
                    }
                    return FulfilmentRoutes.serve(delivery, request: request, state: state)
                } catch let error as DemoProblem {
                    return FulfilmentRoutes.problem(error)
                }
            }
            router.on("/samples/{id}/manifest", method: method) { _, context in
                do {
                    let json = try await state.sampleManifest(LoansRoutes.id(context))
                    return HTTPSupport.response(ByteBuffer(string: json), contentType: "application/audiobook+json")
                } catch let error as DemoProblem {
                    return FulfilmentRoutes.problem(error)
                }
            }
            router.on("/samples/{id}", method: method) { request, context in
                do {
                    let resource = try await state.sample(LoansRoutes.id(context))
                    return FulfilmentRoutes.serve(PartDelivery(resource: resource, statsKey: "sample"), request: request, state: state)
                } catch let error as DemoProblem {
                    return FulfilmentRoutes.problem(error)
                }
            }
        }
    }
}
