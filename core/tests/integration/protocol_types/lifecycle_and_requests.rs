//! Per-type checks against the 2025-11-25 schema: lifecycle, roots and sampling, elicitation,
//! tasks and notifications; the method names against the schema's.

use super::*;

#[test]
fn lifecycle_types() {
    check("Implementation", &full_implementation());
    check("Implementation", &Implementation::new("c", "0.1"));
    check("ClientCapabilities", &full_client_capabilities());
    check("ClientCapabilities", &ClientCapabilities::default());
    check("ServerCapabilities", &full_server_capabilities());
    check("ServerCapabilities", &ServerCapabilities::default());
    check("InitializeRequestParams", &{
        let mut lit = InitializeRequestParams::default();
        lit.protocol_version = ProtocolVersion::LATEST.to_string();
        lit.capabilities = full_client_capabilities();
        lit.client_info = full_implementation();
        lit.meta = Some(request_meta());
        lit
    });
    check("InitializeRequestParams", &{
        let mut lit = InitializeRequestParams::default();
        lit.protocol_version = "2024-11-05".into();
        lit.client_info = Implementation::new("c", "1");
        lit
    });
    check("InitializeResult", &{
        let mut lit = InitializeResult::default();
        lit.protocol_version = "2025-11-25".into();
        lit.capabilities = full_server_capabilities();
        lit.server_info = full_implementation();
        lit.instructions = Some("Use the weather tool for forecasts.".into());
        lit.meta = Some(meta());
        lit
    });
    check("InitializeResult", &{
        let mut lit = InitializeResult::default();
        lit.protocol_version = "2025-11-25".into();
        lit.server_info = Implementation::new("s", "1");
        lit
    });

    // An empty elicitation capability means form mode only.
    let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
    let e = caps.elicitation.unwrap();
    assert!(e.supports_form() && !e.supports_url());
    let e: ElicitationCapability = serde_json::from_value(json!({"url": {}})).unwrap();
    assert!(!e.supports_form() && e.supports_url());
}

#[test]
fn roots_and_sampling_types() {
    let root = {
        let mut lit = Root::new("file:///home/user/project");
        lit.name = Some("My project".into());
        lit.meta = Some(meta());
        lit
    };
    check("Root", &root);
    check("Root", &Root::new("file:///"));
    check("ListRootsResult", &{
        let mut lit = ListRootsResult::default();
        lit.roots = vec![root];
        lit.meta = Some(meta());
        lit
    });
    check("ListRootsResult", &ListRootsResult::default());

    let params = full_create_message_params();
    check("CreateMessageRequestParams", &params);
    for m in &params.messages {
        check("SamplingMessage", m);
    }
    check(
        "ModelPreferences",
        params.model_preferences.as_ref().unwrap(),
    );
    check("ModelPreferences", &ModelPreferences::default());
    check("ModelHint", &ModelHint::default());
    for mode in [
        ToolChoiceMode::Auto,
        ToolChoiceMode::None,
        ToolChoiceMode::Required,
    ] {
        check("ToolChoice", &{
            let mut lit = ToolChoice::default();
            lit.mode = Some(mode);
            lit
        });
    }
    let minimal = {
        let mut lit = CreateMessageRequestParams::default();
        lit.messages = vec![SamplingMessage::user_text("hi")];
        lit.max_tokens = 10;
        lit
    };
    let json = check("CreateMessageRequestParams", &minimal);
    assert_eq!(
        json,
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10})
    );
    for ctx in [
        IncludeContext::None,
        IncludeContext::ThisServer,
        IncludeContext::AllServers,
    ] {
        let p = {
            let mut lit = minimal.clone();
            lit.include_context = Some(ctx);
            lit
        };
        check("CreateMessageRequestParams", &p);
    }

    check("CreateMessageResult", &{
        let mut lit = CreateMessageResult::new(
            SamplingContent::Multiple(vec![
                SamplingMessageContentBlock::text("Checking"),
                SamplingMessageContentBlock::ToolUse(full_tool_use()),
            ]),
            "claude-3-sonnet-20240307",
        );
        lit.role = Role::Assistant;
        lit.stop_reason = Some("toolUse".into());
        lit.meta = Some(meta());
        lit
    });
    let single = {
        let mut lit = CreateMessageResult::new(SamplingContent::text("It is sunny."), "m");
        lit.role = Role::Assistant;
        lit
    };
    let json = check("CreateMessageResult", &single);
    assert!(json["content"].is_object());
    let err = serde_json::from_value::<SamplingContent>(json!([{"type": "video"}]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("video"), "{err}");
    assert_eq!(single.content.blocks().len(), 1);
    assert_eq!(single.content.blocks()[0].as_text(), Some("It is sunny."));
}

#[test]
fn elicitation_types() {
    let form = full_form_params();
    check("ElicitRequestFormParams", &form);
    check(
        "ElicitRequestParams",
        &ElicitRequestParams::Form(form.clone()),
    );
    for (name, field) in &form.requested_schema.properties {
        let def = match field {
            PrimitiveSchemaDefinition::String(_) => "StringSchema",
            PrimitiveSchemaDefinition::Number(_) => "NumberSchema",
            PrimitiveSchemaDefinition::Boolean(_) => "BooleanSchema",
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(_) => {
                "UntitledSingleSelectEnumSchema"
            }
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(_) => "TitledSingleSelectEnumSchema",
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(_) => {
                "UntitledMultiSelectEnumSchema"
            }
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(_) => "TitledMultiSelectEnumSchema",
            PrimitiveSchemaDefinition::LegacyTitledEnum(_) => "LegacyTitledEnumSchema",
            other => panic!("a field type this test does not know: {other:?}"),
        };
        let json = check("PrimitiveSchemaDefinition", field);
        assert_valid(LATEST, def, &json);
        // Decoding picks the same variant.
        let back: PrimitiveSchemaDefinition = serde_json::from_value(json).unwrap();
        assert_eq!(&back, field, "{name}");
    }
    assert_eq!(form.requested_schema.properties.len(), 9);

    // Minimal form: no mode (the 2025-06-18 shape), a single string field.
    let mut properties = BTreeMap::new();
    properties.insert(
        "name".to_string(),
        PrimitiveSchemaDefinition::String(StringSchema::default()),
    );
    let minimal = {
        let mut lit = ElicitRequestFormParams::default();
        lit.message = "Name?".into();
        lit.requested_schema = {
            let mut lit = ElicitationSchema::default();
            lit.properties = properties;
            lit
        };
        lit
    };
    let json = check("ElicitRequestFormParams", &minimal);
    assert!(json.get("mode").is_none());
    assert_valid(
        "2025-06-18",
        "ElicitRequest",
        &json!({
            "jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": json
        }),
    );
    let decoded: ElicitRequestParams = serde_json::from_value(json.clone()).unwrap();
    assert!(matches!(decoded, ElicitRequestParams::Form(_)));

    let url = full_url_params();
    let json = check("ElicitRequestURLParams", &url);
    assert_eq!(json["mode"], "url");
    check(
        "ElicitRequestParams",
        &ElicitRequestParams::Url(url.clone()),
    );
    let decoded: ElicitRequestParams = serde_json::from_value(json).unwrap();
    assert!(matches!(decoded, ElicitRequestParams::Url(_)));
    assert_eq!(decoded.message(), "Please authorize access");
    let minimal_url = {
        let mut lit = ElicitRequestURLParams::default();
        lit.message = "m".into();
        lit.url = "https://example.com/".into();
        lit.elicitation_id = "e".into();
        lit
    };
    check("ElicitRequestURLParams", &minimal_url);
    assert!(serde_json::from_value::<ElicitRequestParams>(json!({
        "mode": "telepathy", "message": "m"
    }))
    .is_err());
    // A URL-mode request without its URL is rejected, not silently read as a form.
    assert!(serde_json::from_value::<ElicitRequestParams>(json!({
        "mode": "url", "message": "m", "elicitationId": "e"
    }))
    .is_err());

    let accepted = {
        let mut lit = ElicitResult::accept(obj(json!({
            "name": "Ada", "age": 36, "subscribe": true, "tags": ["a", "b"]
        })));
        lit.meta = Some(meta());
        lit
    };
    check("ElicitResult", &accepted);
    for action in [
        ElicitAction::Accept,
        ElicitAction::Decline,
        ElicitAction::Cancel,
    ] {
        check("ElicitResult", &ElicitResult::new(action));
    }

    let data = {
        let mut lit = URLElicitationRequiredErrorData::default();
        lit.elicitations = vec![url];
        lit
    };
    assert_valid(
        LATEST,
        "URLElicitationRequiredError",
        &json!({
            "jsonrpc": "2.0",
            "id": 3,
            "error": {
                "code": ferromcp::codes::URL_ELICITATION_REQUIRED,
                "message": "Authorization required",
                "data": serde_json::to_value(&data).unwrap()
            }
        }),
    );
}

#[test]
fn task_types() {
    let task = full_task();
    let json = check("Task", &task);
    assert_eq!(json["status"], "working");
    assert!(json["ttl"].is_u64());
    // Unlimited retention is an explicit null: `ttl` is required.
    let unlimited = Task::new("t", TaskStatus::Completed, "2025-11-25T10:30:00Z");
    let json = check("Task", &unlimited);
    assert_eq!(json.get("ttl"), Some(&Value::Null));
    let mut without_ttl = json.clone();
    without_ttl.as_object_mut().unwrap().remove("ttl");
    assert_invalid(LATEST, "Task", &without_ttl);

    let statuses = [
        (TaskStatus::Working, "working", false),
        (TaskStatus::InputRequired, "input_required", false),
        (TaskStatus::Completed, "completed", true),
        (TaskStatus::Failed, "failed", true),
        (TaskStatus::Cancelled, "cancelled", true),
    ];
    for (status, wire, terminal) in statuses {
        assert_eq!(check("TaskStatus", &status), json!(wire));
        assert_eq!(status.is_terminal(), terminal);
    }

    check("TaskMetadata", &{
        let mut lit = TaskMetadata::default();
        lit.ttl = Some(1000);
        lit
    });
    check("TaskMetadata", &TaskMetadata::default());
    check("CreateTaskResult", &{
        let mut lit = CreateTaskResult::new(task.clone());
        lit.meta = Some(meta());
        lit
    });
    check(
        "CreateTaskResult",
        &CreateTaskResult::new(unlimited.clone()),
    );
    let with_meta = {
        let mut lit = TaskWithMeta::new(task.clone());
        lit.meta = Some(meta());
        lit
    };
    for def in [
        "GetTaskResult",
        "CancelTaskResult",
        "TaskStatusNotificationParams",
    ] {
        check(def, &with_meta);
        check(def, &TaskWithMeta::from(unlimited.clone()));
    }
    let json = serde_json::to_value(&with_meta).unwrap();
    assert_eq!(json["taskId"], "task-123");
    assert!(json["_meta"].is_object());

    // tasks/get, tasks/result, tasks/cancel params (inline in the schema).
    let params = serde_json::to_value(TaskIdParams::new("task-123")).unwrap();
    for (def, method) in [
        ("GetTaskRequest", methods::TASKS_GET),
        ("GetTaskPayloadRequest", methods::TASKS_RESULT),
        ("CancelTaskRequest", methods::TASKS_CANCEL),
    ] {
        assert_valid(
            LATEST,
            def,
            &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        );
    }
    assert_valid(
        LATEST,
        "ListTasksRequest",
        &json!({"jsonrpc": "2.0", "id": 1, "method": methods::TASKS_LIST,
                "params": serde_json::to_value(PaginatedRequestParams::with_cursor("c")).unwrap()}),
    );

    check("ListTasksResult", &{
        let mut lit = ListTasksResult::default();
        lit.tasks = vec![task, unlimited];
        lit.next_cursor = Some("n".into());
        lit.meta = Some(meta());
        lit
    });
    check("ListTasksResult", &ListTasksResult::default());

    // tasks/result carries the original result type.
    let original = CallToolResult::structured(json!({"ok": true}));
    let payload = GetTaskPayloadResult::from_result(&original).unwrap();
    check("GetTaskPayloadResult", &payload);
    assert_valid(
        LATEST,
        "CallToolResult",
        &serde_json::to_value(&payload).unwrap(),
    );
    assert_eq!(payload.parse::<CallToolResult>().unwrap(), original);

    // Related-task metadata in _meta.
    let mut m = Meta::new();
    m.insert(RELATED_TASK_META_KEY.into(), json!({"taskId": "task-123"}));
    assert_eq!(related_task(Some(&m)).unwrap().task_id, "task-123");
}

#[test]
fn notification_types() {
    check("CancelledNotificationParams", &{
        let mut lit = CancelledNotificationParams::new(
            RequestId::from(123),
            Some("User requested cancellation".into()),
        );
        lit.meta = Some(meta());
        lit
    });
    check(
        "CancelledNotificationParams",
        &CancelledNotificationParams::default(),
    );
    // requestId is required before 2025-11-25; we always send it when we have one.
    let p = serde_json::to_value(CancelledNotificationParams::new(
        RequestId::from("r1"),
        None,
    ))
    .unwrap();
    for rev in OLDER {
        assert_valid(
            rev,
            "CancelledNotification",
            &json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_CANCELLED, "params": p}),
        );
    }

    check("ProgressNotificationParams", &{
        let mut lit =
            ProgressNotificationParams::new(ProgressToken::from("abc123"), 50.0, Some(100.0));
        lit.message = Some("Reticulating splines".into());
        lit.meta = Some(meta());
        lit
    });
    let p = check(
        "ProgressNotificationParams",
        &ProgressNotificationParams::new(ProgressToken::from(7), 0.5, None),
    );
    assert_eq!(p, json!({"progressToken": 7, "progress": 0.5}));

    // The params of notifications/elicitation/complete have no definition of their own.
    let done = {
        let mut lit = ElicitationCompleteNotificationParams::default();
        lit.elicitation_id = "elicit-42".into();
        lit.meta = Some(meta());
        lit
    };
    let params = serde_json::to_value(&done).unwrap();
    assert_valid(
        LATEST,
        "ElicitationCompleteNotification",
        &json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_ELICITATION_COMPLETE,
                "params": params}),
    );
    assert_eq!(
        serde_json::from_value::<ElicitationCompleteNotificationParams>(params).unwrap(),
        done
    );
}

#[test]
fn method_names_match_the_schema() {
    // Every request/notification definition's `method` const is one of ours, and vice versa.
    let doc = common::spec_schema::document(LATEST);
    let defs = doc["$defs"].as_object().unwrap();
    let mut schema_methods: Vec<String> = defs
        .values()
        .filter_map(|d| d.pointer("/properties/method/const"))
        .filter_map(|m| m.as_str().map(str::to_owned))
        .collect();
    schema_methods.sort();
    schema_methods.dedup();
    let mut ours: Vec<String> = methods::ALL_REQUESTS
        .iter()
        .chain(methods::ALL_NOTIFICATIONS)
        .map(|m| m.to_string())
        .collect();
    ours.sort();
    let before = ours.len();
    ours.dedup();
    assert_eq!(before, ours.len(), "duplicate method constant");
    assert_eq!(ours, schema_methods);
}
