import Dispatch

/// `transform` of each of `items`, or the error it threw, in order, computed
/// on up to `threadCount` threads: thread t takes items t, t + threads, …,
/// which spreads a model's large and small operators evenly. For load-time
/// work whose items are independent (preparing a model's operators); the
/// results are the same for any thread count.
func concurrentMap<Item: Sendable, Value>(
    _ items: [Item], threadCount: Int, _ transform: @Sendable (Item) throws -> Value
) -> [Result<Value, any Error>] {
    let threads = max(1, min(threadCount, items.count))
    guard threads > 1 else { return items.map { item in Result { try transform(item) } } }
    var results = [Result<Value, any Error>?](repeating: nil, count: items.count)
    results.withUnsafeMutableBufferPointer { results in
        // Each thread writes its own items' slots only.
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in stride(from: thread, to: items.count, by: threads) {
                slots[i] = Result { try transform(items[i]) }
            }
        }
    }
    return results.map { $0! }
}
