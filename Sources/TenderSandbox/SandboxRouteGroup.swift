import FlyingFox

/// A set of routes served by the sandbox: one per service it stands in for (Square's REST API today;
/// POS request pages and the simulator's API later). Each group lives in its own folder.
protocol SandboxRouteGroup: Sendable {
    /// Adds the group's routes to the server.
    func install(on server: HTTPServer) async
}
