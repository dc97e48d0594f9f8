#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who each pose of a video is (docs/PIPELINE.md, "Track ids"): the person ids the pose
/// landmarker reports, kept when two people cross or one is hidden for a while.
///
/// The ROI tracks (``TrackedRect``) follow geometry: when two people overlap, a track can slide
/// from one to the other, and a person found again after a gap starts a new track. The registry
/// sits on top of them and changes no landmark and no ROI: it remembers, for each person, where
/// their torso was, how fast it moved, how large it was, and their body proportions, and gives
/// each frame's poses the ids of the people they match best.
///
/// Each frame (``assign(_:timestampMicroseconds:)``):
/// 1. For every pose and every remembered person, the **position cost**: the distance from the
///    pose's torso centre to where the person was expected (last centre plus velocity times
///    the time since they were seen, the time capped at ``Parameters/maximumExtrapolation``) or
///    to where they were last seen, whichever is nearer, in the person's torso lengths; and the
///    **proportion cost**: the mean absolute log-ratio of the bone-length ratios the two share
///    (``BodySignature``), capped at ``Parameters/signatureCap``; and the **size cost**: the
///    absolute log-ratio of the pose's torso length to the person's. A pair is a candidate when
///    the position cost is at most ``Parameters/positionGate`` grown by
///    ``Parameters/gateGrowthPerSecond`` per second since the person was seen.
/// 2. Its cost: position cost + ``Parameters/signatureWeight`` × proportion cost +
///    ``Parameters/scaleWeight`` × size cost, less ``Parameters/continuityBonus`` when the pose
///    continues the ROI track the person had on the previous frame.
/// 3. Greedy assignment: the cheapest candidate pair first (ties: lower pose index, then
///    lower person index), each pose and each person at most once.
/// 4. Recovery: the poses left and the people not seen on the previous frame nor taken in 3
///    are paired the same way within the wider ``Parameters/recoveryGate``. A pose still left
///    is a new person, with a new id.
/// 5. Two poses that show one body (``Parameters/sameBodyDistance``,
///    ``Parameters/sameBodySize``; two ROI tracks on one person, as while one person hides
///    another): the one matched at the higher cost, or not at all, is a duplicate. It gets its
///    person's id, or a new id, but changes no one: the hidden person's state is not pulled
///    onto the body in front, and no one new is remembered.
/// 6. Matched people take the pose's centre and track; their velocity and torso length move
///    towards this frame's by ``Parameters/updateWeight``; their proportions take in this
///    frame's when within ``Parameters/signatureCap`` of them. People not found are kept for
///    ``Parameters/memoryMicroseconds``, at most ``Parameters/lostCapacity`` of them (the most
///    recently seen).
///
/// Memory is bounded: at most the poses of one frame plus ``Parameters/lostCapacity`` people.
///
/// Thread safety: a `Sendable` value; mutate one copy from one thread at a time.
struct PersonIdentities: Sendable {
    /// The constants of the matching.
    struct Parameters: Sendable, Equatable {
        /// How long a person not found is remembered, microseconds.
        var memoryMicroseconds: Int64 = 1_000_000
        /// The most people remembered while not found.
        var lostCapacity = 8
        /// Longest time the velocity is extrapolated over, seconds.
        var maximumExtrapolation = 0.5
        /// Largest position cost of a candidate pair, torso lengths, for a person seen an
        /// instant ago.
        var positionGate = 0.5
        /// Largest position cost, torso lengths, of a pose left over after the first matching
        /// and a person lost before the previous frame (seen an instant ago). Wider than
        /// ``positionGate``: a person coming out from behind another is seldom where they were
        /// last seen well, and only the people nobody else took are left to choose from.
        var recoveryGate = 1.5
        /// How much the position gates grow per second the person has not been seen, torso
        /// lengths.
        var gateGrowthPerSecond = 5.0
        /// The proportion cost is capped at this (mean absolute log-ratio): the world landmarks
        /// of a body partly hidden can be far off, and must not outweigh its position. A frame
        /// whose proportions are farther than this from the person's is left out of their mean.
        var signatureCap = 0.25
        /// Weight of the proportion cost, torso lengths per unit of log-ratio.
        var signatureWeight = 4.0
        /// Weight of the size cost, torso lengths per unit of log-ratio.
        var scaleWeight = 2.0
        /// Weight of a new frame in the velocity and the torso length (the old value keeps the
        /// rest).
        var updateWeight = 0.25
        /// Subtracted from the cost of a pose that continues the person's ROI track of the
        /// previous frame, torso lengths.
        var continuityBonus = 0.25
        /// Two poses of one frame whose torso centres are this close, in the smaller torso's
        /// lengths, and whose torsos are within ``sameBodySize`` of each other, show one body
        /// (two ROI tracks on one person, as while one person hides another).
        var sameBodyDistance = 0.25
        /// Largest absolute log-ratio of the torso lengths of two poses showing one body.
        var sameBodySize = 0.4
    }

    /// One pose as the registry sees it.
    struct Observation: Sendable, Equatable {
        /// The ROI track the pose continues; nil for none.
        var trackId: Int?
        /// The torso centre: the mean of the shoulders and hips (landmarks 11, 12, 23, 24), pixels.
        var centre: SIMD2<Double>
        /// From the shoulders' midpoint to the hips', pixels; at least 1.
        var torsoLength: Double
        /// The body proportions seen on this frame.
        var signature: BodySignature

        /// - Parameters:
        ///   - trackId: the ROI track the pose continues.
        ///   - landmarks: the 33 pose landmarks, normalized to the image.
        ///   - worldLandmarks: the 33 world landmarks, metres.
        ///   - imageWidth: pixels.
        ///   - imageHeight: pixels.
        /// - Throws: ``PipelineInputError/unexpectedLandmarkCount(expected:actual:)`` unless both
        ///   lists hold 33 landmarks.
        init(
            trackId: Int?, landmarks: [RawLandmark], worldLandmarks: [RawWorldLandmark], imageWidth: Int,
            imageHeight: Int
        ) throws {
            for count in [landmarks.count, worldLandmarks.count] where count != PoseLandmarkSplit.poseLandmarkCount {
                throw PipelineInputError.unexpectedLandmarkCount(expected: PoseLandmarkSplit.poseLandmarkCount, actual: count)
            }
            let size = SIMD2(Double(imageWidth), Double(imageHeight))
            func pixels(_ index: Int) -> SIMD2<Double> {
                SIMD2(Double(landmarks[index].x), Double(landmarks[index].y)) * size
            }
            let shoulders = (pixels(11) + pixels(12)) / 2
            let hips = (pixels(23) + pixels(24)) / 2
            self.trackId = trackId
            centre = (shoulders + hips) / 2
            torsoLength = max(1, Self.length(shoulders - hips))
            signature = BodySignature(worldLandmarks: worldLandmarks)
        }

        /// A ready-made observation (for tests).
        init(trackId: Int?, centre: SIMD2<Double>, torsoLength: Double, signature: BodySignature) {
            self.trackId = trackId
            self.centre = centre
            self.torsoLength = max(1, torsoLength)
            self.signature = signature
        }

        static func length(_ vector: SIMD2<Double>) -> Double {
            (vector * vector).sum().squareRoot()
        }
    }

    /// A person remembered.
    private struct Person: Sendable {
        var id: Int
        var trackId: Int?
        var centre: SIMD2<Double>
        /// Pixels per second.
        var velocity: SIMD2<Double>
        /// Pixels, averaged over frames (``Parameters/updateWeight``).
        var torsoLength: Double
        var signature: BodySignature
        var lastSeenMicroseconds: Int64
    }

    let parameters: Parameters
    private var people: [Person] = []
    private var ids = TrackIdSource()
    /// The timestamp of the previous ``assign(_:timestampMicroseconds:)``; nil before the first.
    private var previousMicroseconds: Int64?

    init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// How many people are remembered, found on the last frame or not (for tests).
    var rememberedCount: Int { people.count }

    /// The person id of each of a frame's poses, in their order; distinct.
    ///
    /// - Parameters:
    ///   - observations: the frame's poses.
    ///   - timestampMicroseconds: the frame time; increasing from call to call.
    mutating func assign(_ observations: [Observation], timestampMicroseconds: Int64) -> [Int] {
        var match = [(person: Int, cost: Double)?](repeating: nil, count: observations.count)
        var taken = Set<Int>()
        // Everyone within the tight gate first; then the people lost before the previous frame,
        // within the wide gate, for the poses still left.
        for recovering in [false, true] {
            var candidates: [(cost: Double, pose: Int, person: Int)] = []
            for (poseIndex, observation) in observations.enumerated() where match[poseIndex] == nil {
                for (personIndex, person) in people.enumerated() where !taken.contains(personIndex) {
                    if recovering && person.lastSeenMicroseconds == previousMicroseconds { continue }
                    let gate = recovering ? parameters.recoveryGate : parameters.positionGate
                    if let cost = cost(of: observation, for: person, at: timestampMicroseconds, gate: gate) {
                        candidates.append((cost, poseIndex, personIndex))
                    }
                }
            }
            candidates.sort { ($0.cost, $0.pose, $0.person) < ($1.cost, $1.pose, $1.person) }
            for candidate in candidates where match[candidate.pose] == nil && !taken.contains(candidate.person) {
                match[candidate.pose] = (candidate.person, candidate.cost)
                taken.insert(candidate.person)
            }
        }
        let duplicate = duplicates(observations, match: match)

        var result: [Int] = []
        var found: [Person] = []
        for (poseIndex, observation) in observations.enumerated() {
            if duplicate[poseIndex] {
                // The person keeps what they were; a new person is not remembered.
                if let index = match[poseIndex]?.person {
                    result.append(people[index].id)
                    found.append(people[index])
                } else {
                    result.append(ids.newId())
                }
                continue
            }
            var person: Person
            if let index = match[poseIndex]?.person {
                person = people[index]
                let seconds = Double(timestampMicroseconds - person.lastSeenMicroseconds) / 1_000_000
                if seconds > 0 {
                    let displacement = (observation.centre - person.centre) / seconds
                    person.velocity += parameters.updateWeight * (displacement - person.velocity)
                }
                person.torsoLength += parameters.updateWeight * (observation.torsoLength - person.torsoLength)
                if (person.signature.distance(to: observation.signature) ?? 0) <= parameters.signatureCap {
                    person.signature.add(observation.signature)
                }
            } else {
                person = Person(
                    id: ids.newId(), trackId: observation.trackId, centre: observation.centre, velocity: .zero,
                    torsoLength: observation.torsoLength, signature: observation.signature,
                    lastSeenMicroseconds: timestampMicroseconds)
            }
            person.centre = observation.centre
            person.trackId = observation.trackId
            person.lastSeenMicroseconds = timestampMicroseconds
            result.append(person.id)
            found.append(person)
        }
        let lost = people.indices
            .filter { !taken.contains($0) }
            .map { people[$0] }
            .filter { timestampMicroseconds - $0.lastSeenMicroseconds <= parameters.memoryMicroseconds }
            .sorted { $0.lastSeenMicroseconds > $1.lastSeenMicroseconds }
            .prefix(parameters.lostCapacity)
        people = found + lost
        previousMicroseconds = timestampMicroseconds
        return result
    }

    /// Forgets everyone; later poses get new ids.
    mutating func reset() {
        people = []
        previousMicroseconds = nil
    }

    /// The cost of giving `observation` the id of `person`, nil when the pair is outside the
    /// position gate `gate` (torso lengths, grown by ``Parameters/gateGrowthPerSecond``).
    private func cost(
        of observation: Observation, for person: Person, at timestampMicroseconds: Int64, gate: Double
    ) -> Double? {
        let seconds = Double(timestampMicroseconds - person.lastSeenMicroseconds) / 1_000_000
        let expected = person.centre + person.velocity * min(seconds, parameters.maximumExtrapolation)
        let distance = min(
            Observation.length(observation.centre - expected), Observation.length(observation.centre - person.centre))
        let position = distance / person.torsoLength
        guard position <= gate + parameters.gateGrowthPerSecond * seconds else { return nil }
        let proportions = min(person.signature.distance(to: observation.signature) ?? 0, parameters.signatureCap)
        let size = abs(log(observation.torsoLength / person.torsoLength))
        let continues = observation.trackId != nil && observation.trackId == person.trackId
            && person.lastSeenMicroseconds == previousMicroseconds
        return position + parameters.signatureWeight * proportions + parameters.scaleWeight * size
            - (continues ? parameters.continuityBonus : 0)
    }

    /// Which poses are second sightings of a body another pose of the frame already shows: of
    /// two poses whose torso centres are within ``Parameters/sameBodyDistance`` of the smaller
    /// torso length and whose torso lengths are within ``Parameters/sameBodySize`` (log-ratio),
    /// the one matched at the higher cost, or not matched (ties: the later pose).
    private func duplicates(_ observations: [Observation], match: [(person: Int, cost: Double)?]) -> [Bool] {
        var duplicate = [Bool](repeating: false, count: observations.count)
        for first in observations.indices {
            for second in observations.indices where second > first {
                let a = observations[first], b = observations[second]
                let distance = Observation.length(a.centre - b.centre) / min(a.torsoLength, b.torsoLength)
                guard distance <= parameters.sameBodyDistance,
                      abs(log(a.torsoLength / b.torsoLength)) <= parameters.sameBodySize else { continue }
                let firstCost = match[first]?.cost ?? .infinity, secondCost = match[second]?.cost ?? .infinity
                duplicate[secondCost >= firstCost ? second : first] = true
            }
        }
        return duplicate
    }
}
