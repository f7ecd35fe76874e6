import Foundation

/// The libraries the demo's library registry lists (`/registry/…`). Each is this one server seen through its own
/// front door: its catalog is the root feed with `?branch=SLUG`, whose Authentication document (`?branch=SLUG`)
/// offers that library's way of signing in, so one demo shows every flow a registry's libraries use.
public struct DemoBranch: Sendable, Equatable {
    /// The query value of its catalog and Authentication document; nil for the demo library itself.
    public var slug: String?
    /// The registry's id for it.
    public var id: String
    public var name: String
    public var description: String
    /// `schema:areaServed`.
    public var areaServed: String
    /// Where it is, for the registry's nearby list.
    public var latitude: Double
    public var longitude: Double
    /// How it signs patrons in; nil: as the demo is configured.
    public var flows: [DemoAuthFlow]?
    /// Its registry entry links an Authentication document that is not there (a 404), as a registry's can.
    public var brokenAuthentication = false
    /// `library-types` code: local, county, state, universal…
    public var kind: String

    /// The demo's libraries, the demo library itself first.
    public static let all: [DemoBranch] = [
        DemoBranch(
            slug: nil, id: "urn:uuid:5e1f0000-0000-4000-8000-000000000001", name: "Shelf Demo Library",
            description: "A demonstration library served by shelf on this computer.", areaServed: "Springfield, IL",
            latitude: 39.7817, longitude: -89.6501, flows: nil, kind: "local"),
        DemoBranch(
            slug: "riverside", id: "urn:uuid:5e1f0000-0000-4000-8000-000000000002", name: "Riverside University Library",
            description: "Students and staff sign in with their university account.", areaServed: "Riverside, CA",
            latitude: 33.9533, longitude: -117.3962, flows: [.saml], kind: "universal"),
        DemoBranch(
            slug: "lakeside", id: "urn:uuid:5e1f0000-0000-4000-8000-000000000003", name: "Lakeside College Library",
            description: "Sign in with your college account.", areaServed: "Lakeside, OH",
            latitude: 41.5398, longitude: -82.7513, flows: [.openIDConnect], kind: "local"),
        DemoBranch(
            slug: "hilltop", id: "urn:uuid:5e1f0000-0000-4000-8000-000000000004", name: "Hilltop Reading Room",
            description: "An OPDS catalog that signs readers in with OAuth.", areaServed: "Springfield, MO",
            latitude: 37.2090, longitude: -93.2923, flows: [.oauthImplicit, .oauthPassword], kind: "county"),
        DemoBranch(
            slug: "oldmill", id: "urn:uuid:5e1f0000-0000-4000-8000-000000000005", name: "Old Mill Library",
            description: "Its sign-in page is being rebuilt.", areaServed: "Springfield, IL",
            latitude: 39.8017, longitude: -89.6436, flows: [], brokenAuthentication: true, kind: "local"),
    ]

    /// The branch a `?branch=` value names (the demo library itself for none or an unknown one).
    public static func named(_ slug: String?) -> DemoBranch? {
        guard let slug else { return nil }
        return all.first { $0.slug == slug }
    }

    /// Kilometres from here to a point, on a sphere (haversine).
    func kilometres(toLatitude latitude: Double, longitude: Double) -> Double {
        func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
        let dLat = radians(latitude - self.latitude)
        let dLon = radians(longitude - self.longitude)
        let a = sin(dLat / 2) * sin(dLat / 2)
            + cos(radians(self.latitude)) * cos(radians(latitude)) * sin(dLon / 2) * sin(dLon / 2)
        return 6_371 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
