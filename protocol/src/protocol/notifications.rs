//! Parameters of the notifications that are not tied to one feature area: cancellation,
//! progress and the completion of a URL elicitation. (Feature-specific notification
//! parameters live with their feature: `ResourceUpdatedNotificationParams` in resources,
//! `LoggingMessageNotificationParams` in logging, `TaskStatusNotificationParams` in tasks.)

use serde::{Deserialize, Serialize};

use super::meta::{JsonObject, Meta, ProgressToken};
use crate::jsonrpc::RequestId;

/// Parameters of `notifications/cancelled`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The request to cancel. Required before 2025-11-25; optional since (task cancellation
    /// uses `tasks/cancel` instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logging or display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CancelledNotificationParams {
    /// Cancels the given request, with an optional reason.
    ///
    /// ```
    /// use ferromcp_protocol::jsonrpc::RequestId;
    /// use ferromcp_protocol::protocol::CancelledNotificationParams;
    ///
    /// let c = CancelledNotificationParams::new(RequestId::from(7), Some("user pressed stop".into()));
    /// let wire = serde_json::to_value(&c).unwrap();
    /// assert_eq!(wire["requestId"], 7);
    /// assert_eq!(wire["reason"], "user pressed stop");
    /// ```
    pub fn new(request_id: RequestId, reason: Option<String>) -> Self {
        CancelledNotificationParams {
            request_id: Some(request_id),
            reason,
            ..Default::default()
        }
    }
}

/// Parameters of `notifications/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; must increase with every notification.
    pub progress: f64,
    /// Total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Human-readable description of the progress (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ProgressNotificationParams {
    /// Progress `progress` (out of `total`, if known) for the given token.
    ///
    /// ```
    /// use ferromcp_protocol::jsonrpc::RequestId;
    /// use ferromcp_protocol::protocol::ProgressNotificationParams;
    /// use serde_json::json;
    ///
    /// let p = ProgressNotificationParams::new(RequestId::from("upload-7"), 3.0, Some(10.0));
    /// assert_eq!(
    ///     serde_json::to_value(&p).unwrap(),
    ///     json!({ "progressToken": "upload-7", "progress": 3.0, "total": 10.0 })
    /// );
    /// ```
    pub fn new(progress_token: ProgressToken, progress: f64, total: Option<f64>) -> Self {
        ProgressNotificationParams {
            progress_token,
            progress,
            total,
            message: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// Parameters of `notifications/elicitation/complete` (2025-11-25+): a URL-mode elicitation
/// finished out of band.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the finished elicitation.
    pub elicitation_id: String,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this revision does not define, kept for a lossless round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}
