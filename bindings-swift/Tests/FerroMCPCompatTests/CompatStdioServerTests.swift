// The swift-sdk README's server examples (Tests/CompatStdioServer: "Basic Server Setup",
// "Tools", "Resources", with only the import changed) served over stdio, against the engine's
// client: what they list and answer is what the examples say.

import FerroMCP
import Foundation
import XCTest

final class CompatStdioServerTests: XCTestCase {
    /// The package's CompatStdioServer executable, which SwiftPM builds next to the tests.
    private func compatStdioServer() throws -> String {
        let dirs = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle(for: CompatStdioServerTests.self).bundleURL.deletingLastPathComponent(),
        ]
        for dir in dirs {
            let path = dir.appendingPathComponent("CompatStdioServer").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw McpError(.internalError, "CompatStdioServer not found in \(dirs.map(\.path))")
    }

    func testReadmeServerExamplesServeTheirToolsAndResourcesOverStdio() async throws {
        let client = try await Client.stdio(command: try compatStdioServer())

        // Basic Server Setup: the name and the capabilities it was given.
        XCTAssertEqual(client.serverInfo?["name"]?.stringValue, "MyModelServer")
        XCTAssertEqual(client.serverInfo?["version"]?.stringValue, "1.0.0")
        let caps = try XCTUnwrap(client.serverCapabilities)
        for capability in ["tools", "resources", "prompts", "logging"] {
            XCTAssertNotNil(caps[capability], "capability \(capability) in \(caps)")
        }

        // Tools: both listed, registered after start(); the README writes each property's
        // description as its schema, listed as {"description": ...} with "type": "object".
        let tools = try await client.listAllTools()
        XCTAssertEqual(Set(tools.map(\.name)), ["weather", "calculator"])
        let weather = try XCTUnwrap(tools.first { $0.name == "weather" })
        XCTAssertEqual(weather.description, "Get current weather for a location")
        XCTAssertEqual(weather.inputSchema["type"], "object")
        XCTAssertEqual(weather.inputSchema["properties"]?["location"]?["description"], "City name or coordinates")

        let forecast = try await client.callTool("weather", arguments: ["location": "Paris", "units": "imperial"])
        XCTAssertFalse(forecast.isError)
        XCTAssertEqual(forecast.text, "Weather for Paris: 71.6°, sunny in Paris")
        let product = try await client.callTool("calculator", arguments: ["expression": "6 * 7"])
        XCTAssertEqual(product.text, "42")
        XCTAssertFalse(product.isError)
        let missing = try await client.callTool("calculator", arguments: [:])
        XCTAssertTrue(missing.isError)
        XCTAssertEqual(missing.text, "Missing expression parameter")

        // Resources: both listed; each read answers what the handler returns.
        let resources = try await client.listAllResources()
        XCTAssertEqual(Set(resources.map(\.uri)), ["resource://knowledge-base/articles", "resource://system/status"])
        let articles = try await client.readResource("resource://knowledge-base/articles")
        XCTAssertEqual(articles.first?.text?.hasPrefix("# Knowledge Base"), true)
        let status = try await client.readResource("resource://system/status")
        XCTAssertEqual(status.first?.mimeType, "application/json")
        let statusJSON = try Value(json: try XCTUnwrap(status.first?.text))
        XCTAssertEqual(statusJSON["status"], "operational")
        XCTAssertEqual(statusJSON["components"]?["model"], "loaded")

        // A URI the list did not give is unknown to the engine: a JSON-RPC error, not a crash.
        do {
            _ = try await client.readResource("resource://nowhere")
            XCTFail("reading an unlisted resource succeeded")
        } catch let e as McpError {
            XCTAssertEqual(e.code, McpError.Code.resourceNotFound.rawValue, "\(e)")
        }
        // So is a tool it did not list (the README's "Unknown tool" branch is not reached).
        do {
            let r = try await client.callTool("image-generator", arguments: [:])
            XCTFail("calling an unlisted tool answered \(r)")
        } catch let e as McpError {
            XCTAssertEqual(e.code, McpError.Code.invalidParams.rawValue, "\(e)")
        }
        await client.close()
    }
}
