/// Identity switches against the ground truth of the clip tests (`PersonIdentityClipTests`,
/// `TrackIdClipTests`): each time an actor identified on two frames (not necessarily
/// consecutive) has another id than the last time, and each time an id identified as one actor
/// is later identified as another.
struct IdentitySwitchCounter {
    private var idOfActor: [String: Int] = [:]
    private var actorOfId: [Int: String] = [:]
    private(set) var switches: [String] = []
    private(set) var identified: [String: Int] = [:]

    mutating func observe(actor: String, id: Int, frame: Int) {
        if let previous = idOfActor[actor], previous != id {
            switches.append("frame \(frame): \(actor) went from id \(previous) to \(id)")
        }
        if let other = actorOfId[id], other != actor {
            switches.append("frame \(frame): id \(id) went from \(other) to \(actor)")
        }
        idOfActor[actor] = id
        actorOfId[id] = actor
        identified[actor, default: 0] += 1
    }
}
