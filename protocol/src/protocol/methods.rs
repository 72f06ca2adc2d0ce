//! Method names of every MCP request and notification, as `&'static str` constants, so that
//! dispatch code never spells a method by hand.

/// `initialize` (client → server request).
pub const INITIALIZE: &str = "initialize";
/// `ping` (either direction).
pub const PING: &str = "ping";

/// `tools/list`.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`.
pub const TOOLS_CALL: &str = "tools/call";

/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/subscribe`.
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe`.
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";

/// `prompts/list`.
pub const PROMPTS_LIST: &str = "prompts/list";
/// `prompts/get`.
pub const PROMPTS_GET: &str = "prompts/get";

/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `logging/setLevel`.
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";

/// `roots/list` (server → client).
pub const ROOTS_LIST: &str = "roots/list";
/// `sampling/createMessage` (server → client).
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `elicitation/create` (server → client, 2025-06-18+).
pub const ELICITATION_CREATE: &str = "elicitation/create";

/// `tasks/get` (2025-11-25+, either direction).
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/result` (2025-11-25+).
pub const TASKS_RESULT: &str = "tasks/result";
/// `tasks/list` (2025-11-25+).
pub const TASKS_LIST: &str = "tasks/list";
/// `tasks/cancel` (2025-11-25+).
pub const TASKS_CANCEL: &str = "tasks/cancel";

/// `notifications/initialized` (client → server).
pub const NOTIFICATIONS_INITIALIZED: &str = "notifications/initialized";
/// `notifications/cancelled` (either direction).
pub const NOTIFICATIONS_CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress` (either direction).
pub const NOTIFICATIONS_PROGRESS: &str = "notifications/progress";
/// `notifications/message` (server → client log message).
pub const NOTIFICATIONS_MESSAGE: &str = "notifications/message";
/// `notifications/resources/updated`.
pub const NOTIFICATIONS_RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// `notifications/resources/list_changed`.
pub const NOTIFICATIONS_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// `notifications/prompts/list_changed`.
pub const NOTIFICATIONS_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// `notifications/tools/list_changed`.
pub const NOTIFICATIONS_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// `notifications/roots/list_changed` (client → server).
pub const NOTIFICATIONS_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// `notifications/tasks/status` (2025-11-25+, either direction).
pub const NOTIFICATIONS_TASKS_STATUS: &str = "notifications/tasks/status";
/// `notifications/elicitation/complete` (2025-11-25+, server → client).
pub const NOTIFICATIONS_ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// Every request method, in schema order.
pub const ALL_REQUESTS: &[&str] = &[
    INITIALIZE,
    PING,
    RESOURCES_LIST,
    RESOURCES_TEMPLATES_LIST,
    RESOURCES_READ,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
    PROMPTS_LIST,
    PROMPTS_GET,
    TOOLS_LIST,
    TOOLS_CALL,
    TASKS_GET,
    TASKS_RESULT,
    TASKS_CANCEL,
    TASKS_LIST,
    LOGGING_SET_LEVEL,
    COMPLETION_COMPLETE,
    SAMPLING_CREATE_MESSAGE,
    ROOTS_LIST,
    ELICITATION_CREATE,
];

/// Every notification method.
pub const ALL_NOTIFICATIONS: &[&str] = &[
    NOTIFICATIONS_INITIALIZED,
    NOTIFICATIONS_CANCELLED,
    NOTIFICATIONS_PROGRESS,
    NOTIFICATIONS_MESSAGE,
    NOTIFICATIONS_RESOURCES_UPDATED,
    NOTIFICATIONS_RESOURCES_LIST_CHANGED,
    NOTIFICATIONS_PROMPTS_LIST_CHANGED,
    NOTIFICATIONS_TOOLS_LIST_CHANGED,
    NOTIFICATIONS_ROOTS_LIST_CHANGED,
    NOTIFICATIONS_TASKS_STATUS,
    NOTIFICATIONS_ELICITATION_COMPLETE,
];
