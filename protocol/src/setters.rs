//! `with_setters!`: the builder methods of the `#[non_exhaustive]` option structs of the crates
//! above this one (the engine, `ferromcp-auth`).
//!
//! A `#[non_exhaustive]` struct cannot be built by a struct literal outside its crate, not even
//! as `Options { field: x, ..Default::default() }`; its users build it as
//! `Options::default().with_field(x)` instead. Written once, here at the bottom of the stack, so
//! every options struct of every crate gets the same methods, one per public field, each
//! documented as setting that field. Exported only because a `macro_rules!` macro crosses crates
//! no other way: hidden from the docs and not part of the API (semver promises nothing about it).

/// Implements, for each `field: Type => setter` pair, `pub fn setter(self, value: Type) -> Self`
/// that sets `field` (builder style, `#[must_use]`). For the workspace's own crates; not an API.
#[doc(hidden)]
#[macro_export]
macro_rules! with_setters {
    ($ty:ident { $($field:ident : $fty:ty => $setter:ident),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!(
                    "Sets [`", stringify!($field), "`](Self::", stringify!($field),
                    "), builder style."
                )]
                #[must_use]
                pub fn $setter(mut self, value: $fty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}
