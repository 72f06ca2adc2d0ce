//! Which traces are recorded, as a plain value: what `OTEL_TRACES_SAMPLER` names and what a
//! caller configures, turned into the SDK's sampler only when a tracer provider is built.

use opentelemetry_sdk::trace::Sampler;

/// Which traces are recorded (the root sampler; a sampled remote parent is followed when the
/// sampling is parent-based, as the SDK's `parentbased_*` samplers do: [`OtelEnv::parent_based`],
/// [`TraceExport::parent_based`]).
///
/// [`OtelEnv::parent_based`]: crate::OtelEnv::parent_based
/// [`TraceExport::parent_based`]: crate::TraceExport::parent_based
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Sampling {
    /// Every trace.
    AlwaysOn,
    /// None (metrics are still recorded and context still propagated).
    AlwaysOff,
    /// This fraction of traces (0.0 to 1.0), chosen by trace id.
    Ratio(f64),
}

impl Sampling {
    /// The fraction of new traces (without a parent) this sampling records: 1 for
    /// [`Self::AlwaysOn`], 0 for [`Self::AlwaysOff`], the ratio given for [`Self::Ratio`].
    pub fn ratio(&self) -> f64 {
        match *self {
            Self::AlwaysOn => 1.0,
            Self::AlwaysOff => 0.0,
            Self::Ratio(r) => r,
        }
    }

    /// The SDK's sampler for this root sampling, wrapped in `ParentBased` when `parent_based`.
    pub(crate) fn sdk_sampler(self, parent_based: bool) -> Sampler {
        let root = match self {
            Self::AlwaysOn => Sampler::AlwaysOn,
            Self::AlwaysOff => Sampler::AlwaysOff,
            Self::Ratio(r) => Sampler::TraceIdRatioBased(r),
        };
        if parent_based {
            Sampler::ParentBased(Box::new(root))
        } else {
            root
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sampling_is_the_sdks_sampler_and_a_ratio() {
        let sdk = |s: Sampling, parent_based| format!("{:?}", s.sdk_sampler(parent_based));
        assert_eq!(sdk(Sampling::AlwaysOn, false), "AlwaysOn");
        assert_eq!(sdk(Sampling::AlwaysOff, false), "AlwaysOff");
        assert_eq!(sdk(Sampling::Ratio(0.25), false), "TraceIdRatioBased(0.25)");
        assert_eq!(
            sdk(Sampling::Ratio(0.5), true),
            "ParentBased(TraceIdRatioBased(0.5))"
        );
        assert_eq!(Sampling::AlwaysOn.ratio(), 1.0);
        assert_eq!(Sampling::AlwaysOff.ratio(), 0.0);
        assert_eq!(Sampling::Ratio(0.01).ratio(), 0.01);
    }
}
