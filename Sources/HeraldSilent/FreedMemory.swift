import CMalloc

/// glibc keeps what a burst of allocations freed in its arenas for the next burst; after a
/// broadcast's hundreds of thousands of short-lived pushes that is hundreds of megabytes the node
/// holds until it exits.
enum FreedMemory {
    static func returnToSystem() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
