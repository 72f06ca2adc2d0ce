//! `uniffi-bindgen-swift`: generates the Swift bindings of `ferromcp-swift` (its Swift file, C
//! header and module map) from the built library. Lives in this workspace so `Cargo.lock` pins
//! the same UniFFI version as the library. Run by `bindings-swift/scripts/build.sh`.

fn main() {
    uniffi::uniffi_bindgen_swift()
}
