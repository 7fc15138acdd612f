/// Whether an error is the process running out of file descriptors (EMFILE, ENFILE): the node
/// survives it, counts it apart on `/metrics`, and tries again later.
public enum ResourceExhaustion {
    public static func isOutOfFileDescriptors(_ error: any Error) -> Bool {
        // NIO's IOError and the errors that wrap it name the errno in their description.
        let text = String(describing: error)
        return text.contains("Too many open files") || text.contains("errno: 24)") || text.contains("errno: 23)")
    }
}
