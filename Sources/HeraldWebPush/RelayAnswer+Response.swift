import HTTPTypes
public import Hummingbird

extension RelayAnswer: ResponseGenerator {
    /// The one HTTP form of every relay answer, refusals included: its status and headers, and
    /// its text, if any, as one line of plain text.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = HTTPFields()
        for (name, value) in self.headers.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        guard !self.text.isEmpty else { return Response(status: .init(code: self.status), headers: fields) }
        fields[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: .init(code: self.status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: self.text + "\n"))
        )
    }
}
