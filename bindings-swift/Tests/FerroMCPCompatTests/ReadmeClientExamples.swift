// The official swift-sdk README's client examples (https://github.com/modelcontextprotocol/swift-sdk,
// README.md at 6132fd4, documentation licensed CC-BY-4.0), each unchanged inside a function
// that gives it what the README's earlier examples define (`client`, `result`, `transport`).
// The file imports FerroMCPCompat where the README imports MCP. `print` is the test module's
// (PrintLog.swift), so the tests read what the examples print. Example numbers count the
// README's Swift code blocks from the top (bindings-swift/README.md lists them all).

import FerroMCPCompat
import Foundation

// README example 7
func readmeClientExample7(client: Client, result: Initialize.Result) async throws {
    // List available resources
    let (resources, nextCursor) = try await client.listResources()
    print("Available resources: \(resources.map { $0.uri }.joined(separator: ", "))")

    // Read a resource
    let contents = try await client.readResource(uri: "resource://example")
    print("Resource content: \(contents)")

    // Subscribe to resource updates if supported
    if result.capabilities.resources?.subscribe == true {
        try await client.subscribeToResource(uri: "resource://example")

        // Register notification handler
        await client.onNotification(ResourceUpdatedNotification.self) { message in
            let uri = message.params.uri
            print("Resource \(uri) updated with new content")

            // Fetch the updated resource content
            let updatedContents = try await client.readResource(uri: uri)
            print("Updated resource content received")
        }
    }
}

// README example 8
func readmeClientExample8(client: Client) async throws {
    // List available prompts
    let (prompts, nextCursor) = try await client.listPrompts()
    print("Available prompts: \(prompts.map { $0.name }.joined(separator: ", "))")

    // Get a prompt with arguments
    let (description, messages) = try await client.getPrompt(
        name: "customer-service",
        arguments: [
            "customerName": "Alice",
            "orderNumber": "ORD-12345",
            "issue": "delivery delay"
        ]
    )

    // Use the prompt messages in your application
    print("Prompt description: \(description)")
    for message in messages {
        if case .text(text: let text) = message.content {
            print("\(message.role): \(text)")
        }
    }
}

// README example 9
func readmeClientExample9(client: Client) async throws {
    // Request completions for a prompt argument
    let completion = try await client.complete(
        promptName: "code_review",
        argumentName: "language",
        argumentValue: "py"
    )

    // Display suggestions to the user
    for value in completion.values {
        print("Suggestion: \(value)")
    }

    if completion.hasMore == true {
        print("More suggestions available (total: \(completion.total ?? 0))")
    }
}

// README example 11
func readmeClientExample11(client: Client) async throws {
    // Get path completions for a resource URI template
    let pathCompletion = try await client.complete(
        resourceURI: "file:///{path}",
        argumentName: "path",
        argumentValue: "/usr/"
    )
    // Returns: ["/usr/bin", "/usr/lib", "/usr/local"]
}

// README example 15
func readmeClientExample15(client: Client) async throws {
    // Set the minimum logging level
    try await client.setLoggingLevel(.warning)

    // Register a handler for log messages from the server
    await client.onNotification(LogMessageNotification.self) { message in
        let level = message.params.level        // LogLevel (debug, info, warning, etc.)
        let logger = message.params.logger      // Optional logger name
        let data = message.params.data          // Arbitrary JSON data

        // Display log message based on level
        switch level {
        case .error, .critical, .alert, .emergency:
            print("❌ [\(logger ?? "server")] \(data)")
        case .warning:
            print("⚠️ [\(logger ?? "server")] \(data)")
        default:
            print("ℹ️ [\(logger ?? "server")] \(data)")
        }
    }
}

// README example 19
func readmeClientExample19(client: Client) async throws {
    // Call a tool with progress tracking
    let progressToken = ProgressToken.unique()

    // Register a notification handler to receive progress updates
    await client.onNotification(ProgressNotification.self) { message in
        let params = message.params
        // Filter by your progress token
        if params.progressToken == progressToken {
            print("Progress: \(params.progress)/\(params.total ?? 0)")
            if let message = params.message {
                print("Status: \(message)")
            }
        }
    }

    // Make the request with the progress token
    let (content, isError) = try await client.callTool(
        name: "long-running-tool",
        arguments: ["input": "value"],
        meta: Metadata(progressToken: progressToken)
    )
}

// README example 16
func readmeClientExample16(client: Client, transport: any Transport) async {
    do {
        try await client.connect(transport: transport)
        // Success
    } catch let error as MCPError {
        print("MCP Error: \(error.localizedDescription)")
    } catch {
        print("Unexpected error: \(error)")
    }
}

// README example 20
func readmeClientExample20() async throws {
    // Strict configuration - fail fast if a capability is missing
    let strictClient = Client(
        name: "StrictClient",
        version: "1.0.0",
        configuration: .strict
    )

    // With strict configuration, calling a method for an unsupported capability
    // will throw an error immediately without sending a request
    do {
        // This will throw an error if resources.list capability is not available
        let resources = try await strictClient.listResources()
    } catch let error as MCPError {
        print("Capability not available: \(error.localizedDescription)")
    }

    // Default (non-strict) configuration - attempt the request anyway
    let client = Client(
        name: "FlexibleClient",
        version: "1.0.0",
        configuration: .default
    )

    // With default configuration, the client will attempt the request
    // even if the capability wasn't advertised by the server
    do {
        let resources = try await client.listResources()
    } catch let error as MCPError {
        // Still handle the error if the server rejects the request
        print("Server rejected request: \(error.localizedDescription)")
    }
}

// README example 12 (set before connect: the client declares sampling then)
func readmeClientExample12(client: Client) async {
    // Register a sampling handler in the client
    await client.withSamplingHandler { parameters in
        // Review the sampling request (human-in-the-loop step 1)
        print("Server requests completion for: \(parameters.messages)")
        
        // Optionally modify the request based on user input
        var messages = parameters.messages
        if let systemPrompt = parameters.systemPrompt {
            print("System prompt: \(systemPrompt)")
        }
        
        // Sample from your LLM (this is where you'd call your AI service)
        let completion = try await callYourLLMService(
            messages: messages,
            maxTokens: parameters.maxTokens,
            temperature: parameters.temperature
        )
        
        // Review the completion (human-in-the-loop step 2)
        print("LLM generated: \(completion)")
        // User can approve, modify, or reject the completion here
        
        // Return the result to the server
        return CreateSamplingMessage.Result(
            model: "your-model-name",
            stopReason: .endTurn,
            role: .assistant,
            content: .text(completion)
        )
    }
}

// README example 14, lines 1-15 (the client and its roots handler; the test connects it)
func readmeClientExample14Setup() async -> Client {
    let client = Client(
        name: "MyApp",
        version: "1.0.0",
        capabilities: .init(
            roots: .init(listChanged: true)
        )
    )

    // Register a handler for roots/list requests from servers
    await client.withRootsHandler {
        return [
            Root(uri: "file:///Users/user/projects", name: "Projects"),
            Root(uri: "file:///Users/user/documents", name: "Documents")
        ]
    }
    return client
}

// README example 14, lines 16-18 (once connected)
func readmeClientExample14Notify(client: Client) async throws {

    // Notify connected servers whenever roots change
    try await client.notifyRootsChanged()
}

// MARK: Your implementation

/// Example 12's model: answers with what it was asked, so the test can check it arrived.
func callYourLLMService(messages: [Sampling.Message], maxTokens: Int, temperature: Double?) async throws -> String {
    let texts = messages.flatMap(\.content.asArray).compactMap { block -> String? in
        if case .text(let t) = block { t } else { nil }
    }
    return "\(texts.joined(separator: " / ")) (max \(maxTokens), temperature \(temperature ?? -1))"
}

// README example 18, with `await` added before `client.send(request)` (the one edit it needs
// against the swift-sdk too: `send` is isolated to the client actor)
func readmeClientExample18(client: Client, largeDataset: Value) async throws {
    // Create any request type
    let request = CallTool.request(.init(
        name: "long-running-analysis",
        arguments: ["data": largeDataset]
    ))

    // Send and get a context for cancellation tracking
    let context: RequestContext<CallTool.Result> = try await client.send(request)

    // Cancel when needed
    try await client.cancelRequest(context.requestID, reason: "Timeout")

    // Get the result
    let result = try await context.value
    let content = result.content
    let isError = result.isError
}
