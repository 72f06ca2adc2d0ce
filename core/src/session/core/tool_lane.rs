//! The typed `tools/call` lane of a [`Session`]: the one place every transport starts a
//! `tools/call` (stdio and Streamable HTTP alike, both eras), with the params read straight from
//! the frame and the tool's result handed back for the transport to write as text. Kept beside
//! `core.rs` (whose private state it uses) so that file keeps the routing of the other messages.
//!
//! A fast-path twin, kept (issue 35, "one path per decision"): this lane and the general
//! dispatch (a `tools/call` whose params the lane does not read, handled by
//! [`Session::handle_incoming`] as any other request) both answer `tools/call`. Every call the
//! lane reads stays on it, with or without middleware: a server with a middleware chain runs
//! the chain inside its [`ToolLane::run_tool`] on the typed call (params and result made JSON
//! only for a layer that asks, [`ToolOutput::Json`] when a layer answered JSON), so admission,
//! cancellation and the era's answer are this lane's for every such call, and the chain is run
//! by the same code as for every other request (`server/middleware/chain.rs`). Pinned:
//! `core/tests/integration/tool_lane_parity.rs` sends the same frames to a server without
//! middleware, with one pass-through layer (the call typed through the chain) and with a layer
//! taking params and result as JSON (the general path), and compares every frame they answer
//! with byte for byte (success, tool errors, argument validation, unknown tool, bad arguments
//! and params, progress tokens, `_meta` shapes; handshake and per-request eras).
//! Worth it, timed: `mcp-bench`, release, 2026-11-29, 3 interleaved repetitions, loadavg ~11
//! (other builds running): server CPU per call, stdio pipelined 1.15 µs on the lane against
//! 1.88 µs on the general path (-39 %), HTTP per-request 32 clients 10.1 against 12.5 µs
//! (-19 %), 1 client 13.0 against 14.7 µs (-12 %); the rows are in
//! `bench/results/fast-path-twins.md`. (Those general-path figures were taken when a server
//! with middleware sent its calls to the general path; they include the pass-through layer
//! itself, ~12 ns per call, `bench/results/middleware.md`.)

use super::{LaneAnswer, Role, Session};
use crate::jsonrpc::{Message, RequestId};
use crate::session::{LaneExtra, RequestContext, ToolCallParams, ToolLane, ToolOutput};
use crate::McpError;
use futures_util::future::BoxFuture;
use std::sync::Arc;

impl Session {
    /// Starts `tools/call` request `id`, read on the typed lane ([`crate::session::inbound::read`]), on
    /// `server`, the lane of this (server) session's service ([`ToolLane`]): what [`Self::handle_incoming`]
    /// does with the same request (admission, cancellation, and in the per-request era the
    /// multi round-trip round from `inputResponses` and `requestState`, `serverInfo` and
    /// `resultType` on the result, `input_required`, the era's error codes), in one future and
    /// without the params or the tool's result as a [`Value`] tree. Every transport starts its
    /// calls here, so the lane is decided once: a message stream that never initialized serves
    /// a per-request-era call on a child of its own (as [`Self::handle_incoming`] does); a
    /// session answers in its era. `into` makes what the caller sends of the answer (`None`:
    /// cancelled, nothing is sent); a request refused at once is `Err` with it.
    pub(crate) fn start_tool_call<S: ToolLane, T: Send + 'static>(
        self: &Arc<Self>,
        server: &S,
        id: RequestId,
        params: ToolCallParams<'_>,
        into: impl FnOnce(Option<LaneAnswer>) -> T + Send + 'static,
    ) -> Result<BoxFuture<'static, T>, T> {
        debug_assert_eq!(self.role, Role::Server);
        let meta = params
            .meta
            .as_deref()
            .map(crate::session::SharedMeta::value);
        if self.opens_per_request("tools/call", meta) {
            return self.start_tool_call_in_child(server, id, params, into);
        }
        if self.is_per_request() {
            return self.start_per_request_tool_call(server, id, params, into);
        }
        let token = match self.admit(&id, "tools/call") {
            Ok(token) => token,
            Err(e) => return Err(into(Some(LaneAnswer::Msg(Message::error(Some(id), e))))),
        };
        let ToolCallParams {
            name,
            arguments,
            task,
            meta,
            input_responses,
            request_state,
        } = params;
        let ctx = RequestContext::with_meta(self.clone(), id.clone(), meta, token);
        let (server, name) = (server.clone(), name.into_owned());
        let extra = LaneExtra {
            input_responses,
            request_state,
        };
        // The call's future is made inside `serve`, so that the boxed future holds it once.
        let call = move |ctx| server.run_tool(name, arguments, task, extra, ctx);
        let answer = move |id: RequestId,
                           _: &RequestContext,
                           outcome: Option<Result<ToolOutput, McpError>>| {
            into(outcome.map(|outcome| match outcome {
                // The common answer: the tool's result, for the transport to write as text.
                Ok(ToolOutput::Result(result)) => LaneAnswer::Tool(id, result, None),
                Ok(ToolOutput::Json(result)) => LaneAnswer::Msg(Message::response(id, result)),
                Err(e) => LaneAnswer::Msg(Message::error(Some(id), e)),
            }))
        };
        Ok(Box::pin(self.clone().serve(id, ctx, call, answer)))
    }

    /// [`Self::start_tool_call`] on this per-request-era session.
    pub(in crate::session) fn start_per_request_tool_call<S: ToolLane, T: Send + 'static>(
        self: &Arc<Self>,
        server: &S,
        id: RequestId,
        params: ToolCallParams<'_>,
        into: impl FnOnce(Option<LaneAnswer>) -> T + Send + 'static,
    ) -> Result<BoxFuture<'static, T>, T> {
        let ToolCallParams {
            name,
            arguments,
            task,
            meta,
            input_responses,
            request_state,
        } = params;
        // A call that carries input from an earlier round has its round read now; a first
        // round is made only if the handler asks for input (`RequestContext::set_tool_round`).
        let admitted = self.admit(&id, "tools/call").and_then(|token| {
            if !crate::session::mrtr::carries_input(
                input_responses.as_ref(),
                request_state.as_ref(),
            ) {
                return Ok((token, None));
            }
            let round = crate::session::mrtr::InputRound::read_parts(
                "tools/call",
                &name,
                input_responses.as_ref(),
                request_state.as_ref(),
                &self.config.request_state_keys,
            );
            if round.is_err() {
                self.in_flight.lock().unwrap().remove(&id);
            }
            Ok((token, Some(Arc::new(round?))))
        });
        let (token, round) = match admitted {
            Ok(admitted) => admitted,
            Err(e) => return Err(into(Some(LaneAnswer::Msg(Message::error(Some(id), e))))),
        };
        // A `requestState` checked for reuse across replicas: the tool runs once the shared
        // store says this is the token's first use.
        let check = round.as_ref().and_then(|round| round.take_use_check());
        let extra = LaneExtra {
            input_responses,
            request_state,
        };
        let mut ctx = RequestContext::with_meta(self.clone(), id.clone(), meta, token);
        ctx.set_tool_round(name.into_owned(), round);
        let server = server.clone();
        let session = self.clone();
        // The server handle is needed by the answer only with a result: the call hands it on
        // with its output (one clone of the handle per call, not two).
        let answer =
            move |id, ctx: &RequestContext, outcome: Option<Result<(ToolOutput, S), McpError>>| {
                into(outcome.map(|outcome| match outcome {
                    // The common answer: the tool's result, for the transport to write as text
                    // (with the server's identity and `resultType`).
                    Ok((ToolOutput::Result(result), server)) if !ctx.input_pending() => {
                        LaneAnswer::Tool(id, result, Some(server.server_info_json()))
                    }
                    other => {
                        let outcome = other.map(|(output, server)| {
                            let mut result = output.into_value();
                            server.add_server_info(&mut result);
                            result
                        });
                        LaneAnswer::Msg(session.per_request_answer(
                            "tools/call",
                            ctx.input_round().map(|round| &**round),
                            id,
                            outcome,
                        ))
                    }
                }))
            };
        // The call's future is made inside `serve`, so that the boxed future holds it once.
        let call = move |ctx: RequestContext| async move {
            if let Some(check) = check {
                check.await?;
            }
            // The tool's name is the context's (a second handle on it, not a copy).
            let named = ctx.clone();
            let output = server
                .run_tool_borrowed(named.tool_name(), arguments, task, extra, ctx)
                .await?;
            Ok((output, server))
        };
        Ok(Box::pin(self.clone().serve(id, ctx, call, answer)))
    }
}
