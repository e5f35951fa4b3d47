/// A set of routes served by the sandbox: one per service it stands in for (the POS apps' pages, Square's and SumUp's
/// REST APIs). Each group lives in its own folder.
protocol SandboxRouteGroup: Sendable {
    /// Adds the group's routes to the router.
    func install(on router: inout SandboxRouter)
}
