//! Sets the linker flags a Node.js addon needs (napi-build).
fn main() {
    napi_build::setup();
}
