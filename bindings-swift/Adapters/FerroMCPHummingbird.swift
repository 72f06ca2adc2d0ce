// FerroMCPHummingbird.swift: serves a FerroMCP `Server` on a Hummingbird 2 router, through
// `Server.httpHandler()` (README: "Mounting in Vapor or Hummingbird"). Copy this file into an
// app target that depends on the products "FerroMCP" (bindings-swift), "Hummingbird"
// (hummingbird) and "HTTPTypes" (swift-http-types; Hummingbird does not re-export it). It is
// not a target of bindings-swift, so the package keeps building without Hummingbird.
// Compiled and run against Hummingbird 2.17.0 with Swift 6.0.3 (an initialize, a tools/call
// over SSE, a GET stream whose client leaves and comes back, a foreign Host, DELETE).

import FerroMCP
import Foundation
import HTTPTypes
import Hummingbird

/// Routes GET, POST and DELETE of `path` to `mcp`. `path` must be the handler's
/// `HTTPOptions.path` (default `/mcp`), since the engine answers 404 for any other target.
/// Bodies over `maxBodySize` bytes are refused by Hummingbird (413) before the engine sees them.
func mountMCP(_ mcp: HTTPHandler, on router: Router<some Hummingbird.RequestContext>,
              path: RouterPath = "mcp", maxBodySize: Int = 4 << 20) {
    for method: HTTPRequest.Method in [.get, .post, .delete] {
        router.on(path, method: method) { request, _ -> Response in
            // swift-http-types keeps Host as the request's authority, not among the header
            // fields; the engine's DNS-rebinding protection needs it.
            var headers = request.headers.map { FerroMCP.HTTPHeader(name: $0.name.rawName, value: $0.value) }
            if let authority = request.head.authority { headers.append(.init(name: "Host", value: authority)) }
            // A GET has no body: it stays unread for consumeWithInboundCloseHandler below.
            let body = method == .get ? ByteBuffer() : try await request.body.collect(upTo: maxBodySize)
            let answer = try await mcp.handle(method: request.method.rawValue, target: request.uri.description,
                                              headers: headers, body: Data(body.readableBytesView))
            var fields = HTTPFields()
            for header in answer.headers {
                if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
            }
            return Response(status: .init(code: answer.status), headers: fields, body: ResponseBody { writer in
                do {
                    if method == .get {
                        // The GET stream is idle most of the time: close it as soon as its client
                        // leaves, so that the client can open a new one (a second is refused, 409).
                        try await request.body.consumeWithInboundCloseHandler({ _ in
                            for try await chunk in answer.body { try await writer.write(ByteBuffer(bytes: chunk)) }
                        }, onInboundClosed: { answer.cancel() })
                    } else {
                        // A POST's stream: a client that left is seen at the next write (an event
                        // or the engine's keep-alive comment, every 15 s).
                        for try await chunk in answer.body { try await writer.write(ByteBuffer(bytes: chunk)) }
                    }
                    try await writer.finish(nil)
                } catch {
                    answer.cancel()
                    throw error
                }
            })
        }
    }
}
