//! [`ServerBuilder`]: the chained registration of a server's tools, resources, prompts,
//! completions, methods and middleware before [`ServerBuilder::build`]. Apart from
//! [`Server`] (`api.rs`) because the two together passed 1,000 lines; the typed registrations
//! (`tool`, `tool_typed`) are in `typed.rs`.

use super::api::{CompletionRef, Server, ServerOptions};
use super::handlers::{CompletionFn, MethodFn, PromptFn, ResourceFn, ToolFn};
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};
use crate::McpError;
use std::sync::Arc;

impl Server {
    /// Starts a server named `name` (its `serverInfo`); register tools, resources and prompts on
    /// the builder, then [`ServerBuilder::build`].
    ///
    /// ```
    /// use ferromcp::server::Server;
    ///
    /// let server = Server::builder("weather", "2.1.0")
    ///     .instructions("Ask for the weather of one city at a time.")
    ///     .tool("ping", "Answers pong", |_: serde_json::Value, _ctx| async { "pong" })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(server.options().name, "weather");
    /// assert_eq!(server.options().instructions.as_deref(), Some("Ask for the weather of one city at a time."));
    /// ```
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        Self::builder_with(ServerOptions::new(name, version))
    }

    /// Starts a server from full [`ServerOptions`] (page size, session limits, which features to
    /// advertise, ...).
    ///
    /// ```
    /// use ferromcp::server::{Server, ServerOptions};
    ///
    /// let mut options = ServerOptions::new("inventory", "0.3.0");
    /// options.page_size = 20; // tools/list and the other lists return 20 items per page
    /// options.enable_prompts = false;
    /// let server = Server::builder_with(options).build().unwrap();
    /// assert_eq!(server.options().page_size, 20);
    /// ```
    pub fn builder_with(options: ServerOptions) -> ServerBuilder {
        ServerBuilder {
            server: Server::unregistered(options),
            error: None,
        }
    }
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    pub(super) server: Server,
    pub(super) error: Option<McpError>,
}

impl ServerBuilder {
    fn keep(&mut self, r: Result<(), McpError>) {
        if let (Err(e), None) = (r, &self.error) {
            self.error = Some(e);
        }
    }

    /// Sets the `instructions` returned at initialize.
    ///
    /// ```
    /// use ferromcp::server::Server;
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("weather", "1.0")
    ///     .instructions("Call `forecast` with a city name.")
    ///     .options(|o| o.session.max_in_flight = 64)
    ///     .build()?;
    /// assert_eq!(server.options().session.max_in_flight, 64);
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// assert_eq!(client.instructions(), Some("Call `forecast` with a city name."));
    /// # Ok(())
    /// # }
    /// ```
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        Arc::get_mut(&mut self.server.inner)
            .expect("builder owns the server")
            .options
            .instructions = Some(text.into());
        self
    }

    /// Adjusts the options.
    pub fn options(mut self, f: impl FnOnce(&mut ServerOptions)) -> Self {
        f(&mut Arc::get_mut(&mut self.server.inner)
            .expect("builder owns the server")
            .options);
        self
    }

    /// Adds a middleware layer (see [`super::middleware`]): layers run in the order they are
    /// added, the first one outermost, around every request and client notification.
    ///
    /// ```
    /// use ferromcp::server::middleware::{Middleware, MiddlewareRequest, MiddlewareResponse, Next};
    /// use ferromcp::server::Server;
    /// use ferromcp::McpError;
    /// use futures_util::future::BoxFuture;
    /// use serde_json::{json, Value};
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// /// Refuses every tool whose name starts with `admin_`.
    /// struct NoAdmin;
    ///
    /// impl Middleware for NoAdmin {
    ///     fn handle<'a>(&'a self, request: MiddlewareRequest, next: Next<'a>) -> BoxFuture<'a, Result<MiddlewareResponse, McpError>> {
    ///         Box::pin(async move {
    ///             if request.tool_name().is_some_and(|t| t.starts_with("admin_")) {
    ///                 return Err(McpError::new(-32003, "Permission denied"));
    ///             }
    ///             next.run(request).await
    ///         })
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), McpError> {
    /// let server = Server::builder("guarded", "1.0")
    ///     .middleware(NoAdmin)
    ///     .tool("admin_reset", "Resets everything", |_: Value, _ctx| async { "done" })
    ///     .tool("hello", "Says hello", |_: Value, _ctx| async { "hello" })
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// assert_eq!(client.call_tool("hello", json!({})).await?.content[0].as_text(), Some("hello"));
    /// let refused = client.call_tool("admin_reset", json!({})).await.unwrap_err();
    /// assert_eq!(refused.code, -32003);
    /// # Ok(())
    /// # }
    /// ```
    pub fn middleware(mut self, layer: impl super::middleware::Middleware) -> Self {
        Arc::get_mut(&mut self.server.inner)
            .expect("builder owns the server")
            .middleware
            .push(Arc::new(layer));
        self
    }

    /// Adds a tool with an untyped handler.
    pub fn tool_raw(mut self, tool: Tool, handler: ToolFn) -> Self {
        let r = self.server.add_tool(tool, handler);
        self.keep(r);
        self
    }

    /// Adds a static resource.
    ///
    /// ```
    /// use ferromcp::protocol::{Resource, ResourceContents, TextResourceContents};
    /// use ferromcp::server::{resource_fn, Server};
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("files", "1.0")
    ///     .resource(
    ///         Resource::new("file:///motd.txt", "motd").with_mime_type("text/plain"),
    ///         resource_fn(|req, _ctx| async move {
    ///             Ok(vec![ResourceContents::Text(TextResourceContents::new(req.uri, "Hello!"))])
    ///         }),
    ///     )
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let read = client.read_resource("file:///motd.txt").await?;
    /// assert_eq!(read.contents[0].uri(), "file:///motd.txt");
    /// // An unknown URI is -32002 (resource not found).
    /// let missing = client.read_resource("file:///nope").await.unwrap_err();
    /// assert_eq!(missing.code, ferromcp::codes::RESOURCE_NOT_FOUND);
    /// # Ok(())
    /// # }
    /// ```
    pub fn resource(self, resource: Resource, handler: ResourceFn) -> Self {
        self.server.add_resource(resource, handler);
        self
    }

    /// Adds a resource template.
    ///
    /// The handler receives the variables the URI matched (RFC 6570, see
    /// [`crate::uri_template`]).
    ///
    /// ```
    /// use ferromcp::protocol::{ResourceContents, ResourceTemplate, TextResourceContents};
    /// use ferromcp::server::{resource_fn, Server};
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("users", "1.0")
    ///     .resource_template(
    ///         ResourceTemplate::new("users://{id}/profile", "profile"),
    ///         resource_fn(|req, _ctx| async move {
    ///             let id = req.variables["id"].clone();
    ///             Ok(vec![ResourceContents::Text(TextResourceContents::new(req.uri, format!("user {id}")))])
    ///         }),
    ///     )
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let read = client.read_resource("users://42/profile").await?;
    /// let ResourceContents::Text(text) = &read.contents[0] else { panic!("text contents") };
    /// assert_eq!(text.text, "user 42");
    /// # Ok(())
    /// # }
    /// ```
    pub fn resource_template(mut self, template: ResourceTemplate, handler: ResourceFn) -> Self {
        let r = self.server.add_resource_template(template, handler);
        self.keep(r);
        self
    }

    /// Adds a prompt.
    ///
    /// Required arguments are checked before the handler runs.
    ///
    /// ```
    /// use ferromcp::protocol::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
    /// use ferromcp::server::{prompt_fn, Server};
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("prompts", "1.0")
    ///     .prompt(
    ///         Prompt::new("review")
    ///             .with_description("Asks for a code review")
    ///             .with_arguments(vec![PromptArgument::new("code").with_required(true)]),
    ///         prompt_fn(|args, _ctx| async move {
    ///             let code = args["code"].as_str().unwrap_or_default().to_string();
    ///             Ok(GetPromptResult::new(vec![PromptMessage::user_text(format!("Review:\n{code}"))]))
    ///         }),
    ///     )
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let mut args = serde_json::Map::new();
    /// args.insert("code".into(), "fn main() {}".into());
    /// let prompt = client.get_prompt("review", args).await?;
    /// assert_eq!(prompt.messages[0].content.as_text(), Some("Review:\nfn main() {}"));
    /// // Without the required argument: -32602.
    /// let refused = client.get_prompt("review", Default::default()).await.unwrap_err();
    /// assert_eq!(refused.code, ferromcp::codes::INVALID_PARAMS);
    /// # Ok(())
    /// # }
    /// ```
    pub fn prompt(self, prompt: Prompt, handler: PromptFn) -> Self {
        self.server.add_prompt(prompt, handler);
        self
    }

    /// Adds a completion handler for one argument of a prompt or template.
    ///
    /// ```
    /// use ferromcp::protocol::{CompleteRequestParams, CompleteResult, Prompt, PromptArgument, PromptReference};
    /// use ferromcp::protocol::{GetPromptResult, PromptMessage};
    /// use ferromcp::server::{completion_fn, prompt_fn, CompletionRef, Server};
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// const LANGUAGES: [&str; 3] = ["python", "pytorch", "rust"];
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("completing", "1.0")
    ///     .prompt(
    ///         Prompt::new("explain").with_arguments(vec![PromptArgument::new("language")]),
    ///         prompt_fn(|_args, _ctx| async { Ok(GetPromptResult::new(vec![PromptMessage::user_text("Explain")])) }),
    ///     )
    ///     .completion(
    ///         CompletionRef::Prompt("explain".into()),
    ///         "language",
    ///         completion_fn(|params, _ctx| async move {
    ///             let typed = params.argument.value;
    ///             let values = LANGUAGES.iter().filter(|l| l.starts_with(&typed)).map(|l| l.to_string());
    ///             Ok(CompleteResult::new(values.collect()).completion)
    ///         }),
    ///     )
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let asked = CompleteRequestParams::new(PromptReference::new("explain"), "language", "py");
    /// let answer = client.complete(asked).await?;
    /// assert_eq!(answer.completion.values, ["python", "pytorch"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn completion(
        self,
        target: CompletionRef,
        argument: impl Into<String>,
        handler: CompletionFn,
    ) -> Self {
        self.server.add_completion(target, argument, handler);
        self
    }

    /// Adds a user-defined method (`example.com/name`).
    ///
    /// ```
    /// use ferromcp::server::{method_fn, Server};
    /// use serde_json::json;
    /// # use ferromcp::client::{Client, ClientHandlers, ClientOptions};
    /// # use ferromcp::transport::memory_pair;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ferromcp::McpError> {
    /// let server = Server::builder("custom", "1.0")
    ///     .method("example.com/echo", method_fn(|params, _ctx| async move {
    ///         Ok(json!({ "echoed": params }))
    ///     }))
    ///     .build()?;
    /// # let ((cr, cw), (sr, sw)) = memory_pair(16);
    /// # tokio::spawn(async move { server.serve(sr, sw).await });
    /// # let client = Client::connect(ClientOptions::new("c", "1"), ClientHandlers::default(), cr, cw).await?;
    /// let answer = client
    ///     .request("example.com/echo", Some(json!({ "x": 1 })), Default::default())
    ///     .await?;
    /// assert_eq!(answer, json!({ "echoed": { "x": 1 } }));
    /// # Ok(())
    /// # }
    /// ```
    pub fn method(mut self, name: impl Into<String>, handler: MethodFn) -> Self {
        let r = self.server.add_method(name, handler);
        self.keep(r);
        self
    }

    /// Finishes the server; fails if any registration was invalid (bad schema, bad template)
    /// or an option is out of range ([`ServerOptions::max_listen_streams`] of 0).
    ///
    /// ```
    /// use ferromcp::protocol::{ResourceTemplate, ResourceContents};
    /// use ferromcp::server::{resource_fn, Server};
    ///
    /// // An unclosed expression is not an RFC 6570 template: `build` says so.
    /// let err = Server::builder("bad", "1.0")
    ///     .resource_template(
    ///         ResourceTemplate::new("users://{id/profile", "profile"),
    ///         resource_fn(|_req, _ctx| async { Ok(Vec::<ResourceContents>::new()) }),
    ///     )
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(err.code, ferromcp::codes::INVALID_PARAMS);
    /// ```
    pub fn build(self) -> Result<Server, McpError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.server.inner.options.max_listen_streams == 0 {
            return Err(McpError::invalid_params(
                "max_listen_streams must be at least 1: 0 would refuse every subscriptions/listen",
            ));
        }
        Ok(self.server)
    }

    pub(crate) fn server(&self) -> &Server {
        &self.server
    }

    pub(crate) fn record(&mut self, r: Result<(), McpError>) {
        self.keep(r);
    }
}
