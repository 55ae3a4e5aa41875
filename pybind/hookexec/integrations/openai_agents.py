"""hookexec for the OpenAI Agents SDK (``openai-agents``; ``pip install hookexec[openai-agents]``).

One line governs an app::

    result = await Hookexec().run(agent, "the user's prompt")

:meth:`Hookexec.run` is ``Runner.run`` with the hooks of the current directory's
``.claude/settings.json`` applied; :meth:`Hookexec.govern` returns a copy of an agent whose
function tools are governed, for apps that call ``Runner.run`` themselves. Where each event
fires and what of its answer the SDK can express:

- **PreToolUse** fires once per function-tool call, in the tool's ``needs_approval`` policy
  (the SDK's first look at a call) or, when the SDK skips that (a call already approved), in
  the adapter's tool input guardrail. A block is ``reject_content`` with the hook's reason (the
  model reads it as the tool's output; the tool does not run); ``continue: false`` is
  ``raise_exception`` (:meth:`run` raises :class:`~hookexec.integrations.RunStopped`); ``ask``
  interrupts the run for the SDK's approval (``result.interruptions``, ``RunState.approve`` /
  ``reject``) unless an ``approve`` callback settles it in place. Guardrails cannot rewrite a
  call, so ``updated_input`` is applied by the governed tool's ``on_invoke_tool``, which runs
  the tool with the rewritten JSON arguments.
- **PostToolUse** fires in the governed ``on_invoke_tool`` after the tool returned;
  ``additional_context`` is appended to the output the model reads; a block replaces the
  output with the reason (the adapter's tool output guardrail: ``reject_content``);
  ``continue: false`` is ``raise_exception``. **PostToolUseFailure** fires when the tool raised:
  in :meth:`run`'s ``RunConfig.tool_error_formatter`` for tools with the SDK's default failure
  handling (its ``additional_context`` joins the error text), and in ``on_invoke_tool`` for an
  exception that escapes the tool.
- **UserPromptSubmit** fires in :meth:`run` before the model sees the prompt: a block raises
  :class:`PromptBlocked` (the model is never called), ``additional_context`` is a system item
  after the prompt.
- **Stop** fires in :meth:`run` on the final output: a block runs the agent again with the
  conversation so far and the reason as the next user message (``stop_hook_active`` true),
  up to ``max_stop_blocks`` times in a row (the engine caps them the same way).
- **SessionStart** fires once, on the first run; **SessionEnd** on :meth:`close`.
  :attr:`Hookexec.hooks` (``RunHooks``) fires SessionStart on ``on_agent_start`` and, for
  ``Runner.run`` without :meth:`run`, Stop on ``on_agent_end`` (notification only there).

Not governed: hosted tools, the local shell/computer/apply-patch tools, tools of
``mcp_servers`` (fetched per run, never in ``agent.tools``) and agents behind ``Handoff``
objects (agents listed directly in ``handoffs`` are governed). docs/frameworks/openai-agents.md
has the table.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import inspect
import json
import logging
from dataclasses import replace
from typing import Any, Awaitable, Callable, Dict, List, Optional, Set, Tuple, Union

from ._gate import Gate, RunStopped, Verdict

__all__ = ["Hookexec", "PromptBlocked", "govern", "run_hooks"]

log = logging.getLogger("hookexec.integrations.openai_agents")

# output_info of the adapter's guardrails, so run() tells its own tripwires from the app's.
_MARK = "hookexec"


def _sdk() -> Any:
    try:
        return importlib.import_module("agents")
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "hookexec.integrations.openai_agents needs the OpenAI Agents SDK: "
            "pip install 'hookexec[openai-agents]'"
        ) from e


class PromptBlocked(RunStopped):
    """A UserPromptSubmit hook blocked the prompt: the model was never called."""


def _parse(arguments: str) -> Dict[str, Any]:
    """A tool call's JSON arguments as the hook's ``tool_input`` (a non-object → ``{"input": raw}``)."""
    try:
        value = json.loads(arguments) if arguments and arguments.strip() else {}
    except ValueError:
        return {"input": arguments}
    return value if isinstance(value, dict) else {"input": value}


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def _with_context(output: Any, context: str) -> Any:
    if not context:
        return output
    text = output if isinstance(output, str) else str(output)
    return f"{text}\n\n{context}"


def _prompt_text(input: Any) -> Optional[str]:
    """The user's prompt in a run's input: the string, or the last user message's text."""
    if isinstance(input, str):
        return input
    if isinstance(input, list):
        for item in reversed(input):
            if isinstance(item, dict) and item.get("role") == "user":
                content = item.get("content")
                if isinstance(content, str):
                    return content
                if isinstance(content, list):
                    return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return None


class Hookexec:
    """hookexec hooks for OpenAI Agents SDK apps.

    ``gate`` is a :class:`~hookexec.integrations.Gate` to use; else one is opened with the
    remaining options (``project_dir``, ``tool_names``, ``approve``, ``on_system_message``,
    engine options such as ``max_stop_blocks``; see :class:`Gate`). ``approve(tool, input,
    reason)`` settles an ``ask`` in place; without it an ``ask`` interrupts the run for the
    SDK's approval. ``max_stop_blocks`` (default 8, as Claude Code) bounds how many times in a
    row a blocked Stop makes :meth:`run` go on; -1 leaves it to the engine.
    """

    def __init__(self, gate: Optional[Gate] = None, *, max_stop_blocks: int = 8, **gate_options: Any) -> None:
        if gate is not None and gate_options:
            raise TypeError("Hookexec(gate=...) takes no gate options: the gate is already made")
        if max_stop_blocks < -1:
            raise ValueError("max_stop_blocks is a count, or -1 for no cap of the adapter's own")
        self.gate = gate if gate is not None else Gate(**gate_options)
        self._owned = gate is None
        self.max_stop_blocks = max_stop_blocks
        # PreToolUse verdicts by call id with the arguments they were made for, until the call
        # is done: a verdict is reused only for the same id AND the same arguments (the model
        # picks ids; a stale allow must not pass a different call).
        self._pre: Dict[str, Tuple[Any, Verdict]] = {}
        self._post: Dict[str, Verdict] = {}  # PostToolUse verdicts by call id, for the output guardrail
        self._failed: Set[str] = set()  # calls whose failure the error formatter already reported
        self._agents: Dict[int, Any] = {}  # id(original agent) -> governed copy
        self._governed: Dict[int, Any] = {}  # id(governed copy) -> itself (kept alive)
        self._hooks: Any = None

    @property
    def hooks(self) -> Any:
        """``RunHooks`` for ``Runner.run(..., hooks=hx.hooks)`` (see :func:`run_hooks`)."""
        if self._hooks is None:
            self._hooks = run_hooks(self)
        return self._hooks

    # --- tools ----------------------------------------------------------------------------

    def govern(self, agent: Any) -> Any:
        """A copy of ``agent`` whose function tools (and those of the agents in its
        ``handoffs``) go through the hooks. Governing a governed agent returns it."""
        if id(agent) in self._governed:
            return agent
        done = self._agents.get(id(agent))
        if done is not None:
            return done
        sdk = _sdk()
        clone = agent.clone()
        self._agents[id(agent)] = clone  # before the handoffs: they may lead back here
        self._governed[id(clone)] = clone
        clone.tools = [self.tool(t) for t in agent.tools]
        clone.handoffs = [self.govern(h) if isinstance(h, sdk.Agent) else h for h in agent.handoffs]
        return clone

    def tool(self, tool: Any) -> Any:
        """A governed copy of a ``FunctionTool``; any other tool is returned unchanged."""
        sdk = _sdk()
        if not isinstance(tool, sdk.FunctionTool):
            return tool
        governed = copy.copy(tool)
        inner = governed.on_invoke_tool
        own_approval = tool.needs_approval
        gate = self.gate

        async def needs_approval(ctx: Any, params: Dict[str, Any], call_id: str) -> bool:
            v = await gate.apre_tool(tool.name, params, call_id)
            if v.asks and gate.approve is not None:
                v = await gate.asettle_ask(v, tool.name, params)
            self._pre[call_id] = (params, v)
            if v.asks:
                return True
            if v.blocked or v.stops:
                return False  # the input guardrail refuses it; asking first would be moot
            if callable(own_approval):
                answer = own_approval(ctx, params, call_id)
                return bool(await answer if inspect.isawaitable(answer) else answer)
            return bool(own_approval)

        async def input_guardrail(data: Any) -> Any:
            ctx = data.context
            params = _parse(ctx.tool_arguments)
            v = self._recall(ctx.tool_call_id, params)
            if v is None:  # the SDK skipped needs_approval: the call was approved before
                v = await gate.apre_tool(tool.name, params, ctx.tool_call_id)
                self._pre[ctx.tool_call_id] = (params, v)
            return await self._pre_behaviour(v, ctx, tool.name)

        async def invoke(ctx: Any, arguments: str) -> Any:
            call_id = ctx.tool_call_id
            v = self._recall(call_id, _parse(arguments))
            self._pre.pop(call_id, None)
            if v is not None and v.updated_input is not None:
                arguments = json.dumps(v.updated_input)
            tool_input = _parse(arguments)
            try:
                output = await inner(ctx, arguments)
            except Exception as e:
                if call_id not in self._failed:
                    await gate.atool_failed(tool.name, tool_input, str(e) or type(e).__name__, call_id)
                self._failed.discard(call_id)
                raise
            if call_id in self._failed:  # the tool raised; the SDK's failure handling answered
                self._failed.discard(call_id)
                return output
            post = await gate.apost_tool(tool.name, tool_input, _jsonable(output), call_id)
            self._post[call_id] = post
            if post.result is not None and post.result.updated_tool_output is not None:
                output = post.result.updated_tool_output
            # A PostToolUse reason is feedback beside the output (the tool already ran).
            feedback = post.reason if not post.blocked else ""
            context = "\n\n".join(c for c in ((v.additional_context if v else ""), feedback, post.additional_context) if c)
            return _with_context(output, context)

        async def output_guardrail(data: Any) -> Any:
            post = self._post.pop(data.context.tool_call_id, None)
            if post is not None and post.stops:
                return sdk.ToolGuardrailFunctionOutput.raise_exception(output_info={_MARK: post.stop_reason})
            if post is not None and post.blocked:
                return sdk.ToolGuardrailFunctionOutput.reject_content(post.feedback(), output_info={_MARK: "PostToolUse"})
            return sdk.ToolGuardrailFunctionOutput.allow()

        governed.on_invoke_tool = invoke
        governed.needs_approval = needs_approval
        governed.tool_input_guardrails = [sdk.ToolInputGuardrail(input_guardrail, name="hookexec_pre_tool_use"), *(tool.tool_input_guardrails or [])]
        governed.tool_output_guardrails = [sdk.ToolOutputGuardrail(output_guardrail, name="hookexec_post_tool_use"), *(tool.tool_output_guardrails or [])]
        return governed

    def _recall(self, call_id: str, params: Any) -> Optional[Verdict]:
        """The PreToolUse verdict kept for this call id, if it was made for these arguments."""
        kept = self._pre.get(call_id)
        if kept is None or kept[0] != params:
            return None
        verdict: Verdict = kept[1]
        return verdict

    async def _pre_behaviour(self, v: Verdict, ctx: Any, name: str) -> Any:
        out = _sdk().ToolGuardrailFunctionOutput
        if v.asks and ctx.is_tool_approved(name, ctx.tool_call_id) is not True:
            # Only reachable past the SDK's approval when an app bypassed it: the gate's
            # fallback settles it (the approve callback, else a block with the hook's reason).
            v = await self.gate.asettle_ask(v, name, _parse(ctx.tool_arguments))
        if v.stops or v.blocked:
            self._pre.pop(ctx.tool_call_id, None)
        if v.stops:
            return out.raise_exception(output_info={_MARK: v.stop_reason})
        if v.blocked:
            return out.reject_content(v.feedback(), output_info={_MARK: "PreToolUse"})
        return out.allow()

    # --- runs -----------------------------------------------------------------------------

    async def run(self, agent: Any, input: Any, **kwargs: Any) -> Any:
        """``Runner.run(agent, input, **kwargs)`` under the hooks (``agent`` governed here).

        Raises :class:`PromptBlocked` when UserPromptSubmit blocks, and
        :class:`~hookexec.integrations.RunStopped` when a hook answers ``continue: false``.
        A result with ``interruptions`` waits for the app's approvals: approve or reject them
        on ``result.to_state()`` and pass the state back as ``input``.
        """
        sdk = _sdk()
        agent = self.govern(agent)
        kwargs["run_config"] = self._run_config(kwargs.get("run_config"))
        start = await self.gate.asession_start()
        if not isinstance(input, sdk.RunState):
            input = await self._prompt(input, start.additional_context)
        blocks = 0
        while True:
            try:
                result = await sdk.Runner.run(agent, input, **kwargs)
            except (sdk.ToolInputGuardrailTripwireTriggered, sdk.ToolOutputGuardrailTripwireTriggered) as e:
                info = e.output.output_info
                if isinstance(info, dict) and _MARK in info:
                    raise RunStopped(str(info[_MARK])) from e
                raise
            if result.interruptions:
                return result
            v = await self.gate.astop(_final_text(result.final_output), stop_hook_active=blocks > 0)
            if v.stops:
                raise RunStopped(v.stop_reason, v)
            if not v.blocked:
                return result
            blocks += 1
            if 0 <= self.max_stop_blocks < blocks:
                log.warning("hookexec: Stop blocked %d times in a row; the run ends (max_stop_blocks)", blocks)
                return result
            go_on = {"role": "user", "content": v.feedback()}
            input = [go_on] if kwargs.get("session") is not None else [*result.to_input_list(), go_on]

    def run_sync(self, agent: Any, input: Any, **kwargs: Any) -> Any:
        """:meth:`run` for code without an event loop."""
        return asyncio.run(self.run(agent, input, **kwargs))

    async def _prompt(self, input: Any, session_context: str) -> Any:
        """Fires UserPromptSubmit; the run's input with the hooks' context as system items."""
        context = [session_context] if session_context else []
        prompt = _prompt_text(input)
        if prompt is not None:
            v = await self.gate.auser_prompt(prompt)
            if v.stops:
                raise RunStopped(v.stop_reason, v)
            if v.blocked:
                raise PromptBlocked(v.feedback(), v)
            if v.additional_context:
                context.append(v.additional_context)
        if not context:
            return input
        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        return [*items, *({"role": "system", "content": c} for c in context)]

    def _run_config(self, config: Any) -> Any:
        sdk = _sdk()
        config = copy.copy(config) if config is not None else sdk.RunConfig()
        theirs: Optional[Callable[[Any], Any]] = config.tool_error_formatter

        async def formatter(args: Any) -> Optional[str]:
            message: Any = None
            if theirs is not None:
                message = theirs(args)
                if inspect.isawaitable(message):
                    message = await message
            text: str = message if isinstance(message, str) else str(args.default_message)
            if args.kind == "tool_exception" and args.tool_type == "function":
                ctx = args.run_context
                tool_input = _parse(getattr(ctx, "tool_arguments", "") or "")
                v = await self.gate.atool_failed(args.tool_name, tool_input, str(args.error or text), args.call_id)
                self._failed.add(args.call_id)
                out: str = _with_context(text, v.additional_context)
                return out
            if args.kind == "approval_rejected":
                kept = self._pre.pop(args.call_id, None)
                pre = kept[1] if kept is not None else None
                if pre is not None and pre.asks and message is None:
                    return f"{pre.feedback()} (the user did not approve this call)"
            return message if isinstance(message, str) else None

        config.tool_error_formatter = formatter
        return config

    # --- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Fires SessionEnd (if a run started) and closes the gate the adapter opened."""
        if self._owned:
            self.gate.close()
        else:
            self.gate.session_end()

    def __enter__(self) -> "Hookexec":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    async def __aenter__(self) -> "Hookexec":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await asyncio.to_thread(self.close)


def _final_text(output: Any) -> str:
    if output is None or isinstance(output, str):
        return output or ""
    try:
        return json.dumps(output.model_dump() if hasattr(output, "model_dump") else output)
    except (TypeError, ValueError):
        return str(output)


def run_hooks(hx: Hookexec) -> Any:
    """A ``RunHooks`` for ``Runner.run(agent, input, hooks=...)``: SessionStart on the first
    ``on_agent_start``; Stop on ``on_agent_end``, a notification there (the SDK cannot go on
    from a hook; ``continue: false`` raises :class:`RunStopped`). :meth:`Hookexec.run` does not
    need it and makes a blocked Stop go on."""
    base: Any = _sdk().RunHooks

    class HookexecRunHooks(base):  # type: ignore[misc]
        async def on_agent_start(self, context: Any, agent: Any) -> None:
            await hx.gate.asession_start()

        async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
            v = await hx.gate.astop(_final_text(output))
            if v.stops:
                raise RunStopped(v.stop_reason, v)
            if v.blocked:
                log.warning("hookexec: a Stop hook asked to go on (%s); Runner.run cannot: use Hookexec.run", v.feedback())

    return HookexecRunHooks()


def govern(agent: Any, **options: Any) -> Any:
    """``Hookexec(**options).govern(agent)``: a copy of ``agent`` with its function tools
    governed, for apps that call ``Runner.run`` themselves."""
    return Hookexec(**options).govern(agent)
