/// The newest `limit` things appended, oldest first: what a stand-in remembers of the requests it received, so that a
/// sandbox left running, or driven by a load test, does not grow without end. A ring: appending past the limit
/// replaces the oldest in place, in constant time.
struct BoundedLog<Element: Sendable>: Sendable {
    /// The most it keeps.
    let limit: Int
    /// What it keeps; once full, ``oldest`` is where the oldest is, and the next append replaces it.
    private var storage: [Element] = []
    private var oldest = 0

    /// An empty log keeping at most `limit` elements (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// What it keeps, oldest first.
    var elements: [Element] {
        Array(storage[oldest...] + storage[..<oldest])
    }

    /// How many it keeps.
    var count: Int { storage.count }

    /// Appends `element`, forgetting the oldest past the limit.
    mutating func append(_ element: Element) {
        guard storage.count == limit else {
            storage.append(element)
            return
        }
        storage[oldest] = element
        oldest = (oldest + 1) % limit
    }
}
