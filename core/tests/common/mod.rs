//! Helpers shared by the integration tests (`mod common;` in a test file).

#![allow(dead_code)]

pub mod spec_schema;
