// The official swift-sdk README's server examples that run in process
// (https://github.com/modelcontextprotocol/swift-sdk, README.md at 6132fd4, documentation
// licensed CC-BY-4.0), each unchanged inside a function that gives it the `server` the README's
// earlier examples define, or returns the one it makes. The file imports FerroMCPCompat where
// the README imports MCP; what the README leaves to "Your implementation" is at the end.

import FerroMCPCompat
import Foundation

// README example 27
func readmeServerExample27() async throws -> Server {
    // Enable completions capability
    let server = Server(
        name: "MyServer",
        version: "1.0.0",
        capabilities: .init(
            completions: .init(),
            prompts: .init(listChanged: true)
        )
    )

    // Register a completion handler
    await server.withMethodHandler(Complete.self) { params in
        // Get the argument being completed
        let argumentName = params.argument.name
        let currentValue = params.argument.value

        // Check which prompt or resource is being completed
        switch params.ref {
        case .prompt(let promptRef):
            // Provide completions for a prompt argument
            if promptRef.name == "code_review" && argumentName == "language" {
                // Simple prefix matching
                let allLanguages = ["python", "perl", "php", "javascript", "java", "swift"]
                let matches = allLanguages.filter { $0.hasPrefix(currentValue.lowercased()) }

                return .init(
                    completion: .init(
                        values: Array(matches.prefix(100)),  // Max 100 items
                        total: matches.count,
                        hasMore: matches.count > 100
                    )
                )
            }

        case .resource(let resourceRef):
            // Provide completions for a resource template argument
            if resourceRef.uri == "file:///{path}" && argumentName == "path" {
                // Return directory suggestions
                let suggestions = try getDirectoryCompletions(for: currentValue)
                return .init(
                    completion: .init(
                        values: suggestions,
                        total: suggestions.count,
                        hasMore: false
                    )
                )
            }
        }

        // No completions available
        return .init(completion: .init(values: [], total: 0, hasMore: false))
    }
    return server
}

// README example 33
func readmeServerExample33() async throws -> Server {
    // Enable logging capability
    let server = Server(
        name: "MyServer",
        version: "1.0.0",
        capabilities: .init(
            logging: .init(),
            tools: .init(listChanged: true)
        )
    )

    // Send log messages at different severity levels
    try await server.log(
        level: .info,
        logger: "database",
        data: Value.object([
            "message": .string("Database connected successfully"),
            "host": .string("localhost"),
            "port": .int(5432)
        ])
    )

    try await server.log(
        level: .error,
        logger: "api",
        data: Value.object([
            "message": .string("Request failed"),
            "statusCode": .int(500),
            "error": .string("Internal server error")
        ])
    )

    // You can also use codable types directly
    struct ErrorLog: Codable {
        let message: String
        let code: Int
        let timestamp: String
    }

    let errorLog = ErrorLog(
        message: "Operation failed",
        code: 500,
        timestamp: ISO8601DateFormatter().string(from: Date())
    )

    try await server.log(level: .error, logger: "operations", data: errorLog)
    return server
}

// README example 34
func readmeServerExample34(server: Server) async {
    // Register a handler for client's logging level preferences
    await server.withMethodHandler(SetLoggingLevel.self) { params in
        let minimumLevel = params.level

        // Store the client's preference and filter log messages accordingly
        // (Implementation depends on your server architecture)
        storeLogLevel(minimumLevel)

        return Empty()
    }
}

// README example 35
func readmeServerExample35(server: Server) async {
    await server.withMethodHandler(CallTool.self) { params in
        // Read the progress token from request metadata
        guard let token = params._meta?.progressToken else {
            // No progress token provided — run without reporting progress
            return .init(content: [.text("Done")], isError: false)
        }

        // Report initial progress
        let started = ProgressNotification.message(
            .init(progressToken: token, progress: 0, total: 100)
        )
        try await server.notify(started)

        // ... do work ...

        // Report intermediate progress
        let halfway = ProgressNotification.message(
            .init(progressToken: token, progress: 50, total: 100, message: "Halfway there")
        )
        try await server.notify(halfway)

        // ... do more work ...

        // Report completion
        let done = ProgressNotification.message(
            .init(progressToken: token, progress: 100, total: 100, message: "Complete")
        )
        try await server.notify(done)

        return .init(content: [.text("Done")], isError: false)
    }
}

// README example 30 (asks outside any handler: the server's only session)
func readmeServerExample30(server: Server) async throws {
    // Ask the user to provide some additional information
    let schema = Elicitation.RequestSchema(
        title: "Additional Information Required",
        description: "Please provide the following details to continue",
        properties: [
            "name": .object([
                "type": .string("string"),
                "description": .string("Your full name")
            ]),
            "confirmed": .object([
                "type": .string("boolean"),
                "description": .string("Do you confirm the provided information?")
            ])
        ],
        required: ["name", "confirmed"]
    )

    let result = try await server.requestElicitation(
        message: "Some details are needed before proceeding",
        requestedSchema: schema
    )

    switch result.action {
    case .accept:
        if let content = result.content {
            let name = content["name"]?.stringValue
            let confirmed = content["confirmed"]?.boolValue
            // Use the collected data...
        }
    case .decline:
        throw MCPError.invalidRequest("User declined to provide information")
    case .cancel:
        throw MCPError.invalidRequest("Operation canceled by user")
    }
}

// README example 31
func readmeServerExample31(server: Server) async throws {
    let result = try await server.requestElicitation(
        message: "Please sign in to continue",
        url: "https://example.com/oauth/authorize?client_id=...",
        elicitationId: UUID().uuidString
    )
}

// README example 32
func readmeServerExample32(server: Server) async throws {
    // Request roots from the connected client
    // (requires the client to declare the roots capability)
    let roots = try await server.listRoots()
    for root in roots {
        print("Root: \(root.name ?? root.uri) at \(root.uri)")
    }

    // React to root list changes
    await server.onNotification(RootsListChangedNotification.self) { _ in
        let updatedRoots = try await server.listRoots()
        print("Roots updated: \(updatedRoots.map { $0.uri })")
    }
}

// README example 36 (the `transport` it starts on is the test's)
func readmeServerExample36(server: Server, transport: any Transport) async throws {
    // Start the server with an initialize hook
    try await server.start(transport: transport) { clientInfo, clientCapabilities in
        // Validate client info
        guard clientInfo.name != "BlockedClient" else {
            throw MCPError.invalidRequest("This client is not allowed")
        }

        // You can also inspect client capabilities
        if clientCapabilities.sampling == nil {
            print("Client does not support sampling")
        }

        // Perform any server-side setup based on client info
        print("Client \(clientInfo.name) v\(clientInfo.version) connected")

        // If the hook completes without throwing, initialization succeeds
    }
}

// MARK: Your implementation

/// Example 27's directory suggestions for "file:///{path}".
func getDirectoryCompletions(for prefix: String) throws -> [String] {
    ["/usr/bin", "/usr/lib", "/usr/local"].filter { $0.hasPrefix(prefix) }
}

/// Example 34's log level store: what the handler was given (it is not called: the engine keeps
/// each session's level itself).
let storedLogLevels = PrintLog()

func storeLogLevel(_ level: LogLevel) {
    storedLogLevels.record(level.rawValue)
}
