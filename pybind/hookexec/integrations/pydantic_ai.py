"""hookexec for Pydantic AI: one capability governs an agent with the project's hooks.

    from hookexec.integrations.pydantic_ai import HookexecHooks

    agent = Agent(model, tools=[shell], capabilities=[HookexecHooks()])

:class:`HookexecHooks` is a Pydantic AI capability (``AbstractCapability``) that fires hookexec
events from the framework's own hook points and answers in the framework's own verbs:

- ``before_run``: SessionStart (once per capability) and UserPromptSubmit; a blocked prompt
  ends the run before the model is called (:class:`~hookexec.integrations.RunStopped`);
- ``wrap_tool_execute``: PreToolUse (deny → ``SkipToolExecution`` with the reason as the
  tool's result; ``updatedInput`` → the tool runs with it; ask → ``ApprovalRequired``,
  settled by ``handle_deferred_tool_calls``), PostToolUse (``updatedToolOutput`` replaces the
  result) and PostToolUseFailure;
- ``after_node_run`` on the run's ``End``: Stop (a block enqueues the reason, so the agent
  goes on with one more model request; an engine error there ends the run);
- :meth:`close`: SessionEnd.

Hook text for the model (``additionalContext``, a PostToolUse block's reason, a Stop block's
reason) is enqueued with ``RunContext.enqueue`` as a ``SystemPromptPart``, which reaches the
next model request. ``continue: false`` raises :class:`~hookexec.integrations.RunStopped` out
of ``agent.run``. Pydantic AI is imported when :class:`HookexecHooks` is first used, not when
this module is (``pip install 'hookexec[pydantic-ai]'``). docs/frameworks/pydantic-ai.md has
the whole mapping and what the framework cannot express.
"""

from __future__ import annotations

import copy
import importlib
from dataclasses import replace
from typing import Any, Dict, Optional

from ._gate import Gate, RunStopped, Verdict

__all__ = ["HookexecHooks", "Gate", "RunStopped"]

_EXTRA = "pip install 'hookexec[pydantic-ai]'"
_classes: Dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    # The capability subclasses Pydantic AI's AbstractCapability, so it is built on first use:
    # importing this module never imports the framework.
    if name == "HookexecHooks":
        if name not in _classes:
            _classes[name] = _build()
        return _classes[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"hookexec.integrations.pydantic_ai needs Pydantic AI ({module}): {_EXTRA}") from e


def _text(prompt: Any) -> str:
    """A prompt's text: a str, or the str items of a multi-modal sequence."""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(p for p in prompt if isinstance(p, str))


def _rewritten(output: Any, tool_input: Dict[str, Any], updated: Dict[str, Any]) -> Any:
    """An output function's argument rewritten by a hook's ``updatedInput``: the dict of a
    multi-argument function, or the value of a one-argument one whose call had that one key;
    None when it cannot be applied (the call is then refused, never run unchanged)."""
    if isinstance(output, dict):
        return updated
    if len(tool_input) == 1 and updated.keys() == tool_input.keys() and isinstance(output, (str, int, float, bool)):
        value = next(iter(updated.values()))
        return value if type(value) is type(output) else None
    return None


def _build() -> Any:
    caps = _import("pydantic_ai.capabilities")
    exc = _import("pydantic_ai.exceptions")
    msgs = _import("pydantic_ai.messages")
    tools = _import("pydantic_ai.tools")
    graph = _import("pydantic_graph")
    core = _import("pydantic_core")
    base: Any = caps.AbstractCapability
    passthrough = (exc.SkipToolExecution, exc.CallDeferred, exc.ApprovalRequired, RunStopped)

    class HookexecHooks(base):  # type: ignore[misc]
        """A Pydantic AI capability that runs the project's hooks around the agent.

        ``gate`` is a :class:`~hookexec.integrations.Gate` to use (its owner closes it); else
        one is opened with ``gate_options`` (``project_dir``, ``profile``, ``tool_names``,
        ``approve``, ``on_system_message``, engine options) and closed by :meth:`close`.

        An ``ask`` becomes Pydantic AI's approval: the call raises ``ApprovalRequired`` and this
        capability's ``handle_deferred_tool_calls`` settles it with the gate's ``approve``
        callback (a denial's reason reaches the model as the tool's result). Without a callback
        the call is denied with the hook's reason, unless ``defer_asks`` is true: then the call
        stays deferred for the app's own handling (a ``DeferredToolRequests`` output or another
        ``HandleDeferredToolCalls`` capability), and a call approved that way runs without
        asking again.
        """

        def __init__(self, gate: Optional[Gate] = None, *, defer_asks: bool = False, **gate_options: Any) -> None:
            if gate is not None and gate_options:
                raise TypeError("HookexecHooks(gate=...) takes no gate options: the gate is already open")
            self._owned = gate is None
            self.gate: Gate = gate if gate is not None else Gate(**gate_options)
            self.defer_asks = defer_asks
            self._reset()

        def _reset(self) -> None:
            # Per run (for_run copies): asks awaiting approval and the verdicts of approved
            # calls, by tool call id; whether a Stop hook already made this run go on.
            self._asking: Dict[str, Verdict] = {}
            self._approved: Dict[str, Verdict] = {}
            self._stop_active = False

        async def for_run(self, ctx: Any) -> Any:
            run = copy.copy(self)
            run._reset()
            return run

        # --- lifecycle ------------------------------------------------------------------

        def close(self) -> None:
            """Fires SessionEnd (if a run started the session) and closes the gate it opened."""
            if self._owned:
                self.gate.close()
            else:
                self.gate.session_end()

        async def aclose(self) -> None:
            await self.gate.asession_end()
            if self._owned:
                self.gate.close()

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc_info: Any) -> None:
            self.close()

        async def __aenter__(self) -> Any:
            return self

        async def __aexit__(self, *exc_info: Any) -> None:
            await self.aclose()

        # --- helpers --------------------------------------------------------------------

        @staticmethod
        def _tell(ctx: Any, text: str) -> None:
            """Hook text for the model, in the next request (after the current tool's result)."""
            if text:
                ctx.enqueue(msgs.SystemPromptPart(text))

        @staticmethod
        def _stop_if(v: Verdict) -> None:
            if v.stops:
                raise RunStopped(v.stop_reason, v)

        # --- the run --------------------------------------------------------------------

        async def before_run(self, ctx: Any) -> None:
            v = await self.gate.asession_start()
            self._stop_if(v)
            self._tell(ctx, v.additional_context)
            if ctx.prompt is None:  # a resumed run (deferred tool results) submits no prompt
                return
            v = await self.gate.auser_prompt(_text(ctx.prompt))
            self._stop_if(v)
            if v.blocked:
                raise RunStopped(v.feedback(), v)
            self._tell(ctx, v.additional_context)

        async def after_node_run(self, ctx: Any, *, node: Any, result: Any) -> Any:
            if not isinstance(result, graph.End):
                return result
            output = result.data.output
            if isinstance(output, tools.DeferredToolRequests):  # paused for approval, not stopping
                return result
            v = await self.gate.astop(self._last_text(ctx, output), stop_hook_active=self._stop_active)
            self._stop_if(v)
            if v.error:
                # Failing closed on Stop must not mean going on for ever: the run ends instead.
                raise RunStopped(v.reason, v)
            if v.blocked:
                # An enqueued message turns the End into one more model request.
                self._stop_active = True
                self._tell(ctx, v.feedback())
            return result

        @staticmethod
        def _last_text(ctx: Any, output: Any) -> str:
            if isinstance(output, str):
                return output
            for m in reversed(ctx.messages):
                if isinstance(m, msgs.ModelResponse):
                    text = "".join(p.content for p in m.parts if isinstance(p, msgs.TextPart))
                    if text:
                        return text
                    break
            return "" if output is None else str(output)

        # --- tools ----------------------------------------------------------------------

        async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Dict[str, Any], handler: Any) -> Any:
            name, cid = call.tool_name, call.tool_call_id
            v = self._approved.pop(cid, None) if ctx.tool_call_approved else None
            if v is None:
                v = await self.gate.apre_tool(name, args, cid)
                self._stop_if(v)
                if v.asks:
                    if not ctx.tool_call_approved:
                        self._asking[cid] = v
                        raise exc.ApprovalRequired({"hookexec_reason": v.reason})
                    v = replace(v, decision="allow")  # the app approved the deferred call
            if v.blocked:
                raise exc.SkipToolExecution(v.feedback())
            self._tell(ctx, v.additional_context)
            run_args = v.updated_input if v.updated_input is not None else args
            try:
                result = await handler(run_args)
            except passthrough:
                raise
            except Exception as e:
                f = await self.gate.atool_failed(name, run_args, str(e) or type(e).__name__, cid)
                self._tell(ctx, f.additional_context)
                if f.stops:
                    raise RunStopped(f.stop_reason, f) from e
                raise
            post = await self.gate.apost_tool(name, run_args, core.to_jsonable_python(result, fallback=str), cid)
            self._stop_if(post)
            if post.blocked or post.reason:
                # The tool already ran: a PostToolUse "block" is feedback (the engine keeps its
                # reason without blocking), for the model to read after the result.
                self._tell(ctx, post.feedback())
            self._tell(ctx, post.additional_context)
            if post.result is not None and post.result.updated_tool_output is not None:
                return post.result.updated_tool_output
            return result

        async def wrap_output_process(self, ctx: Any, *, output_context: Any, output: Any, handler: Any) -> Any:
            # An output function is a tool the model calls to end the run: Pydantic AI runs it
            # through its output hooks, not wrap_tool_execute, so it meets PreToolUse here.
            # While streaming it runs on partial outputs too, each of which is decided alone.
            if not output_context.has_function:
                return await handler(output)
            call = output_context.tool_call
            name = output_context.function_name or (call.tool_name if call is not None else "final_result")
            cid = call.tool_call_id if call is not None else None
            if isinstance(output, dict):
                tool_input: Dict[str, Any] = output
            elif call is not None:
                tool_input = call.args_as_dict()
            else:
                tool_input = {"input": core.to_jsonable_python(output, fallback=str)}
            v = await self.gate.apre_tool(name, tool_input, cid)
            self._stop_if(v)
            v = await self.gate.asettle_ask(v, name, tool_input)
            run_output = output
            if not v.blocked and v.updated_input is not None:
                run_output = _rewritten(output, tool_input, v.updated_input)
                if run_output is None:
                    v = replace(v, decision="deny", reason="hookexec: updatedInput cannot be applied to this output function's argument")
            if v.blocked:
                raise exc.ModelRetry(v.feedback())
            result = await handler(run_output)
            if not ctx.partial_output:
                post = await self.gate.apost_tool(name, v.updated_input or tool_input, core.to_jsonable_python(result, fallback=str), cid)
                self._stop_if(post)
            return result

        async def handle_deferred_tool_calls(self, ctx: Any, *, requests: Any) -> Any:
            mine = [c for c in requests.approvals if c.tool_call_id in self._asking]
            if not mine or (self.defer_asks and self.gate.approve is None):
                return None
            approvals: Dict[str, Any] = {}
            for c in mine:
                v = await self.gate.asettle_ask(self._asking.pop(c.tool_call_id), c.tool_name, c.args_as_dict())
                if v.decision == "allow":
                    self._approved[c.tool_call_id] = v
                    approvals[c.tool_call_id] = True
                else:
                    approvals[c.tool_call_id] = tools.ToolDenied(v.feedback())
            return tools.DeferredToolResults(approvals=approvals)

    HookexecHooks.__module__ = __name__
    return HookexecHooks
