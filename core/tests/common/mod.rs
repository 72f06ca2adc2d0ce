//! Helpers shared by the integration tests (`mod common;` in a test file).

#![allow(dead_code)]

pub mod listen;
pub mod spec_schema;
