/// The newest `limit` things appended, oldest first: what a stand-in remembers of the requests it received, so that a
/// sandbox left running, or driven by a load test, does not grow without end.
struct BoundedLog<Element: Sendable>: Sendable {
    /// The most it keeps.
    let limit: Int
    /// What it keeps, oldest first.
    private(set) var elements: [Element] = []

    /// An empty log keeping at most `limit` elements (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Appends `element`, forgetting the oldest past the limit.
    mutating func append(_ element: Element) {
        elements.append(element)
        if elements.count > limit { elements.removeFirst(elements.count - limit) }
    }
}
