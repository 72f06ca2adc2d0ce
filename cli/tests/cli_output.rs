//! The `ferromcp` command's output against the Rust everything-server (directly, and through
//! `ferromcp proxy --stdio`): the readable text and the `--json` results in full, the progress
//! lines on stderr, the exit statuses, and the messages of usage and configuration errors.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

/// The everything-server: `$FERROMCP_EVERYTHING_SERVER`, else beside this test's target dir
/// (`cargo build -p ferromcp-examples --bin everything-server`; a workspace test builds it).
fn everything_server() -> String {
    if let Some(p) = std::env::var_os("FERROMCP_EVERYTHING_SERVER") {
        return PathBuf::from(p).display().to_string();
    }
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("everything-server");
    assert!(
        bin.exists(),
        "{} is missing: cargo build -p ferromcp-examples --bin everything-server",
        bin.display()
    );
    bin.display().to_string()
}

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn ferromcp(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_ferromcp"))
        .args(args)
        .output()
        .expect("ferromcp runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn json_of(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", r.stdout))
}

#[test]
fn call_prints_the_text_and_progress_lines_while_the_tool_runs() {
    let s = everything_server();
    let r = ferromcp(&["call", &s, "test_tool_with_progress"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    // The tool answers with the progress token it was given: the command asked for progress.
    assert!(r.stdout.trim().parse::<u64>().is_ok(), "{}", r.stdout);
    assert_eq!(
        r.stderr,
        "progress 0/100: Completed step 0 of 100\n\
         progress 50/100: Completed step 50 of 100\n\
         progress 100/100: Completed step 100 of 100\n"
    );
    let r = ferromcp(&["call", &s, "test_multiple_content_types"]);
    assert_eq!(
        r.stdout,
        "Multiple content types test:\n\
         [image image/png, 72 bytes]\n\
         [resource test://mixed-content-resource (application/json)]\n\
         {\"test\":\"data\",\"value\":123}\n"
    );
}

#[test]
fn call_json_prints_the_result_and_a_tool_error_exits_1() {
    let s = everything_server();
    let r = ferromcp(&["call", &s, "test_simple_text", "--json"]);
    assert_eq!(r.status, 0);
    assert_eq!(
        json_of(&r),
        json!({ "content": [{ "type": "text", "text": "This is a simple text response for testing." }] })
    );
    let r = ferromcp(&["call", &s, "test_error_handling"]);
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stdout,
        "This tool intentionally returns an error for testing\n"
    );
    assert_eq!(r.stderr, "the tool reported an error\n");
    let r = ferromcp(&["call", &s, "no_such_tool"]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .starts_with("ferromcp: call: the server has no tool \"no_such_tool\"; it has: "),
        "{}",
        r.stderr
    );
}

#[test]
fn read_and_prompt_print_contents_and_messages() {
    let s = everything_server();
    let r = ferromcp(&["read", &s, "test://static-text"]);
    assert_eq!(
        r.stdout,
        "[resource test://static-text (text/plain)]\nThis is the content of the static text resource.\n"
    );
    let r = ferromcp(&["read", &s, "test://static-text", "--json"]);
    assert_eq!(
        json_of(&r),
        json!({ "contents": [{ "uri": "test://static-text", "mimeType": "text/plain",
                               "text": "This is the content of the static text resource." }] })
    );
    let r = ferromcp(&[
        "prompt",
        &s,
        "test_prompt_with_arguments",
        "arg1=a",
        "arg2=b",
    ]);
    assert_eq!(
        r.stdout,
        "[user] Prompt with arguments: arg1='a', arg2='b'\n"
    );
    let r = ferromcp(&["read", &s, "test://nowhere"]);
    assert_eq!(r.status, 1);
    assert!(
        r.stderr.starts_with("ferromcp: error -32002: "),
        "{}",
        r.stderr
    );
}

#[test]
fn list_prints_one_entry_per_item() {
    let s = everything_server();
    let r = ferromcp(&["list", &s, "resources"]);
    assert_eq!(
        r.stdout,
        "test://static-text  static-text  (text/plain)\n\
         test://static-binary  static-binary  (image/png)\n\
         test://watched-resource  watched-resource  (text/plain)\n"
    );
    let r = ferromcp(&["list", &s, "templates"]);
    assert_eq!(
        r.stdout,
        "test://template/{id}/data  template  (application/json)\n"
    );
    let r = ferromcp(&["list", &s]);
    assert!(
        r.stdout.contains(
            "test_sampling(prompt: string)\n    Asks the client's LLM to answer a prompt\n"
        ),
        "{}",
        r.stdout
    );
    let r = ferromcp(&["list", &s, "prompts", "--json"]);
    let listed = json_of(&r);
    let names: Vec<&str> = listed["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"test_prompt_with_arguments"), "{names:?}");
}

#[test]
fn inspect_prints_the_whole_surface() {
    let s = everything_server();
    let r = ferromcp(&["inspect", &s]);
    assert_eq!(r.status, 0);
    let head: Vec<&str> = r.stdout.lines().take(3).collect();
    assert_eq!(
        head,
        [
            "server: mcp-conformance-test-server 1.0.0",
            "protocol: 2025-11-25",
            "capabilities: completions, logging, prompts (listChanged), resources (listChanged, subscribe), \
             tasks (cancel, list, requests), tools (listChanged)",
        ]
    );
    let j = json_of(&ferromcp(&["inspect", &s, "--json"]));
    for (key, title) in [
        ("tools", "tools"),
        ("resources", "resources"),
        ("resourceTemplates", "resource templates"),
        ("prompts", "prompts"),
    ] {
        let n = j[key].as_array().unwrap().len();
        assert!(n > 0, "{key}");
        assert!(
            r.stdout.contains(&format!("\n{title} ({n}):\n")),
            "{title} ({n}) in {}",
            r.stdout
        );
    }
    assert_eq!(j["serverInfo"]["name"], "mcp-conformance-test-server");
}

#[test]
fn through_the_proxy_two_servers_are_namespaced() {
    let s = everything_server();
    let dir = std::env::temp_dir().join(format!("ferromcp-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "a": { "command": s }, "b": { "command": s, "args": ["--transport", "stdio"] } } })
            .to_string(),
    )
    .unwrap();
    let proxy = format!(
        "{} proxy --config {} --stdio",
        env!("CARGO_BIN_EXE_ferromcp"),
        config.display()
    );
    let r = ferromcp(&["call", &proxy, "b_test_simple_text"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "This is a simple text response for testing.\n");
    let r = ferromcp(&["read", &proxy, "a+test://static-text"]);
    assert_eq!(
        r.stdout,
        "[resource a+test://static-text (text/plain)]\nThis is the content of the static text resource.\n"
    );
    let r = ferromcp(&["list", &proxy, "templates"]);
    let mut lines: Vec<&str> = r.stdout.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "a+test://template/{id}/data  template  (application/json)",
            "b+test://template/{id}/data  template  (application/json)"
        ]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn usage_and_configuration_errors_exit_2_with_a_message() {
    let r = ferromcp(&["list"]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .starts_with("ferromcp: list: SERVER (a command line or a URL) is required\n"),
        "{}",
        r.stderr
    );
    let dir = std::env::temp_dir().join(format!("ferromcp-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mcp.json");
    std::fs::write(
        &config,
        r#"{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}"#,
    )
    .unwrap();
    let r = ferromcp(&["proxy", "--config", config.to_str().unwrap(), "--stdio"]);
    assert_eq!(r.status, 2);
    assert_eq!(
        r.stderr,
        format!(
            "ferromcp: {}: mcpServers.a: has both \"command\" and \"url\": a server is either started (command) or reached (url)\n",
            config.display()
        )
    );
    let r = ferromcp(&["call", "/nonexistent/server-binary", "t"]);
    assert_eq!(r.status, 1);
    assert!(
        r.stderr
            .starts_with("ferromcp: cannot connect to /nonexistent/server-binary: "),
        "{}",
        r.stderr
    );
    std::fs::remove_dir_all(&dir).ok();
}
