// SpecFiles: where the tests read the MCP specification's files (its JSON Schemas and their
// examples): `../shared/spec` beside the repository, as CI lays it, or the directory
// FERROMCP_SPEC_DIR names. SchemaFieldsTests and SchemaExamplesTests read them from here.

import Foundation

enum SpecFiles {
    /// The spec directory: FERROMCP_SPEC_DIR when set, else `<repository>/../shared/spec`.
    static var root: URL {
        if let d = ProcessInfo.processInfo.environment["FERROMCP_SPEC_DIR"], !d.isEmpty {
            return URL(fileURLWithPath: d)
        }
        // <repository>/bindings-swift/Tests/FerroMCPTests/<this file> -> <repository>/../shared/spec
        var repoParent = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { repoParent = repoParent.deletingLastPathComponent() }
        return repoParent.appendingPathComponent("shared/spec")
    }

    /// Where the files are looked for, for the error of a test that finds one missing.
    static let lookedFor = "../shared/spec beside the repository, or FERROMCP_SPEC_DIR"
}
