/// Objects kept for as long as the list lives, in order, and visited on a hot path without
/// retaining them. An object (or a closure) read out of an array element is retained and
/// released around its use, an atomic pair each time; one reached through a reference the
/// caller guarantees is not. Nothing is ever removed, so the kept references outlive every
/// visit.
struct KeptObjects<Object: AnyObject> {
    /// What keeps them.
    private(set) var all: [Object] = []
    /// The same objects, visited without a retain.
    private var unretained: [Unmanaged<Object>] = []

    init(_ objects: [Object] = []) {
        all = objects
        unretained = objects.map { Unmanaged.passUnretained($0) }
    }

    mutating func append(_ object: Object) {
        all.append(object)
        unretained.append(Unmanaged.passUnretained(object))
    }

    /// Each object in order. Indexed through the buffer: the array's iterator costs more.
    @inline(__always)
    func forEach(_ body: (Object) -> Void) {
        unretained.withUnsafeBufferPointer { objects in
            for index in objects.indices { objects[index]._withUnsafeGuaranteedRef(body) }
        }
    }
}
