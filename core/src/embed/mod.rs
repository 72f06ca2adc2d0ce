//! The JSON-in/JSON-out surface that the Python, Node.js and Swift bindings share.
