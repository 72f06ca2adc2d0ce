//! `with_setters!`: the builder methods of the engine's `#[non_exhaustive]` option structs.
//!
//! A `#[non_exhaustive]` struct cannot be built by a struct literal outside this crate, not even
//! as `Options { field: x, ..Default::default() }`; its users build it as
//! `Options::default().with_field(x)` instead. Written once per crate so every options struct gets
//! the same methods, one per public field, each documented as setting that field.
//!
//! The same 20 lines as the engine's own `with_setters!` (core/src/setters.rs): a copy rather
//! than an export, so that neither crate's public face carries a macro that is not an API.

/// Implements, for each `field: Type => setter` pair, `pub fn setter(self, value: Type) -> Self`
/// that sets `field` (builder style, `#[must_use]`).
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

pub(crate) use with_setters;
