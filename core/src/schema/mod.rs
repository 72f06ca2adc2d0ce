//! JSON Schema 2020-12 validation of tool input and output, compiled once and cached.
