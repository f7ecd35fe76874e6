import Foundation
import Hummingbird

/// The Palace annotation service: reading positions and bookmarks, as W3C Web Annotations.
enum AnnotationRoutes {
    static let annotationType = #"application/ld+json; profile="http://www.w3.org/ns/anno.jsonld""#

    static func add(to router: Router<DemoRequestContext>, state: DemoState, configuration: DemoConfiguration) {
        let realm = configuration.libraryName
        router.get("/annotations") { request, _ in
            try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                collection(await state.annotationCollection(for: username, workID: nil))
            }
        }
        router.post("/annotations") { request, context in
            var request = request
            let bytes = Array(buffer: try await request.collectBody(upTo: context.maxUploadSize))
            return try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                do {
                    let annotation = try await state.postAnnotation(document: bytes, username: username)
                    var document = await state.item(annotation).object ?? [:]
                    document["@context"] = .string("http://www.w3.org/ns/anno.jsonld")
                    return HTTPSupport.response(ByteBuffer(data: JSONValue.object(document).encoded(pretty: true)),
                                                contentType: annotationType,
                                                headers: [.cacheControl: "private, no-cache"])
                } catch let error as DemoAnnotationError {
                    return problem(error)
                }
            }
        }
        // A work's annotations by its OPDS id, or one annotation by its number.
        router.get("/annotations/{id}") { request, context in
            try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                let id = LoansRoutes.id(context)
                if await state.title(id: id) != nil {
                    return collection(await state.annotationCollection(for: username, workID: id))
                }
                if let number = Int(id), let document = await state.annotationDocument(number: number, username: username) {
                    return HTTPSupport.response(ByteBuffer(data: document), contentType: annotationType,
                                                headers: [.cacheControl: "private, no-cache"])
                }
                return problem(.notFound("No work or annotation has the id \(id)."))
            }
        }
        router.delete("/annotations/{id}") { request, context in
            try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                let id = LoansRoutes.id(context)
                do {
                    guard let number = Int(id) else { throw DemoAnnotationError.notFound("No annotation \(id).") }
                    try await state.deleteAnnotation(username: username, number: number)
                    return Response(status: .ok, headers: [.contentLength: "0"])
                } catch let error as DemoAnnotationError {
                    return problem(error)
                }
            }
        }
    }

    private static func collection(_ body: Data) -> Response {
        var headers: HTTPFields = [.cacheControl: "private, no-cache", .allow: "GET,HEAD,OPTIONS,POST"]
        let link = HTTPFields.Element.Name("Link")!
        headers.append(HTTPFields.Element(name: link, value: #"<http://www.w3.org/ns/ldp#BasicContainer>; rel="type""#))
        headers.append(HTTPFields.Element(name: link,
                                 value: #"<http://www.w3.org/TR/annotation-protocol/>; rel="http://www.w3.org/ns/ldp#constrainedBy""#))
        return HTTPSupport.response(ByteBuffer(data: body), contentType: annotationType, headers: headers)
    }

    static func problem(_ error: DemoAnnotationError) -> Response {
        HTTPSupport.problem(.init(code: error.status), type: error.problemType, title: error.title,
                            detail: error.localizedDescription)
    }
}
