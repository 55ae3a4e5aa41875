"""hookexec for CrewAI: one line governs a crew (or agents) through CrewAI's own hooks.

    from hookexec.integrations.crewai import govern
    crew = govern(Crew(agents=[agent], tasks=[task]))

:func:`govern` registers CrewAI ``before_tool_call``/``after_tool_call`` and
``before_llm_call`` hooks that act for the governed agents only, and adds a guardrail to each
task of a crew:

- a tool call fires PreToolUse in ``before_tool_call``: a block (or an unapproved ask) aborts
  the call, and ``after_tool_call`` (which CrewAI runs for a blocked call too) replaces
  CrewAI's "Tool execution blocked by hook" with the hook's reason, so the model reads it;
  ``updated_input`` is written into ``context.tool_input`` in place, the dict the tool runs with;
- ``after_tool_call`` fires PostToolUse (``additional_context`` and a block's reason appended to
  the result the model reads) or, for a call that raised, PostToolUseFailure;
- an agent's first model call for a task fires SessionStart (once) and UserPromptSubmit with
  the task's prompt: a block aborts the run (:class:`PromptBlocked`), ``additional_context``
  is appended to that prompt;
- a task's output fires Stop in the task's guardrail: a block fails the guardrail with the
  reason, and CrewAI has the agent redo the task with it (up to ``guardrail_max_retries``);
- ``continue: false`` ends the run: the tool call is refused and the next model call aborts
  with :class:`RunStopped`, which ``crew.kickoff()`` raises.

CrewAI is imported lazily: ``pip install 'hookexec[crewai]'``.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import sys
import threading
import uuid
import weakref
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from ._gate import Gate, RunStopped, Verdict

__all__ = ["govern", "hooks_of", "CrewAIHooks", "PromptBlocked"]

# How CrewAI reports a tool that raised, in the result its after hooks see.
_TOOL_ERROR = "Error executing tool: "


def _require() -> Any:
    """crewai.hooks.dispatch, where CrewAI's hooks are registered and HookAborted lives."""
    try:
        return importlib.import_module("crewai.hooks.dispatch")
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("hookexec.integrations.crewai needs crewai: pip install 'hookexec[crewai]'") from e


@functools.lru_cache(maxsize=None)
def _aborts() -> Tuple[Any, Any]:
    """The exceptions the adapter raises inside CrewAI hooks: CrewAI swallows any exception
    a hook raises except its HookAborted (fail open), so they are HookAborted too."""
    HookAborted: Any = _require().HookAborted

    class Stopped(HookAborted, RunStopped):  # type: ignore[misc]
        """A hook answered ``continue: false``: raised to end the run (a :class:`RunStopped`)."""

        def __init__(self, reason: str, verdict: Optional[Verdict] = None) -> None:
            HookAborted.__init__(self, reason or "a hook stopped the run", source="hookexec")
            self.verdict = verdict

    class Blocked(Stopped):
        """A UserPromptSubmit hook blocked the task's prompt (a :class:`PromptBlocked`)."""

    return Stopped, Blocked


def __getattr__(name: str) -> Any:
    if name == "PromptBlocked":
        return _aborts()[1]
    raise AttributeError(name)


class CrewAIHooks:
    """One gate governing CrewAI agents. ``gate`` is a :class:`Gate` to use (not closed here);
    else one is opened with ``gate_options`` (``project_dir``, ``tool_names``, ``approve``,
    ``on_system_message``, ...). Without ``approve``, an ask is put to the user with CrewAI's
    ``request_human_input`` when stdin is a terminal, else refused with its reason.
    :meth:`close` unregisters the hooks, fires SessionEnd and closes the gate it opened."""

    def __init__(self, gate: Optional[Gate] = None, **gate_options: Any) -> None:
        if gate is not None and gate_options:
            raise TypeError("CrewAIHooks(gate=...) takes no gate options: the gate is already made")
        _require()
        self._owned = gate is None
        self.gate = gate if gate is not None else Gate(**gate_options)
        self._agents: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._lock = threading.Lock()
        self._calls: Dict[int, Tuple[Dict[str, Any], str, str]] = {}  # id(tool_input) -> (it, use id, refusal)
        self._prompted: Set[int] = set()  # executors whose prompt was fired
        self._stop: Optional[Verdict] = None
        self._registered: List[Tuple[Any, Any]] = []
        self._closed = False
        self._register()

    # --- registration ---------------------------------------------------------------------

    def _register(self) -> None:
        d = _require()
        for point, fn in (
            (d.InterceptionPoint.PRE_TOOL_CALL, self._before_tool),
            (d.InterceptionPoint.POST_TOOL_CALL, self._after_tool),
            (d.InterceptionPoint.PRE_MODEL_CALL, self._before_llm),
        ):
            d.register(point, fn)
            self._registered.append((point, fn))

    def govern(self, target: Any) -> Any:
        """Governs a Crew (its agents and tasks), an Agent, or a list of them; returns it."""
        if isinstance(target, (list, tuple)):
            for t in target:
                self.govern(t)
            return target
        agents = getattr(target, "agents", None)
        if agents is not None and hasattr(target, "tasks"):
            for a in agents:
                self._agents.add(a)
            for task in target.tasks:
                self._guard_task(task)
                if task.agent is not None:
                    self._agents.add(task.agent)
        else:
            self._agents.add(target)
        return target

    def _mine(self, ctx: Any) -> bool:
        agent = getattr(ctx, "agent", None)
        return agent is not None and agent in self._agents

    # --- tools ----------------------------------------------------------------------------

    def _before_tool(self, ctx: Any) -> None:
        if not self._mine(ctx):
            return None
        stopped, _ = _aborts()
        name, tool_input = str(ctx.tool_name), ctx.tool_input
        use_id = f"toolu_{uuid.uuid4().hex[:24]}"
        try:
            v = self._settle(self.gate.pre_tool(name, dict(tool_input), use_id), ctx)
        except Exception as e:  # noqa: BLE001 - CrewAI would swallow it and run the tool
            v = Verdict(event="PreToolUse", decision="deny", reason=f"hookexec: PreToolUse failed: {e}", error=str(e))
        refusal = ""
        if v.stops:
            self._request_stop(v)
            refusal = v.stop_reason or v.reason or "a hook stopped the run"
        elif v.blocked:
            refusal = v.feedback()
        elif v.updated_input is not None:
            tool_input.clear()  # in place: CrewAI runs the tool with this very dict
            tool_input.update(v.updated_input)
        with self._lock:
            self._calls[id(tool_input)] = (tool_input, use_id, refusal)
        if refusal:
            raise stopped(refusal, v) if v.stops else _hook_aborted(refusal)
        return None

    def _settle(self, v: Verdict, ctx: Any) -> Verdict:
        if not v.asks or self.gate.approve is not None or not sys.stdin.isatty():
            return self.gate.settle_ask(v, str(ctx.tool_name), dict(ctx.tool_input))
        answer = ctx.request_human_input(
            prompt=f"hookexec: {self.gate.canonical(str(ctx.tool_name))} {dict(ctx.tool_input)}: {v.reason}",
            default_message="Type 'yes' to allow this call:",
        )
        return Gate._asked(v, answer.strip().lower() in ("y", "yes"))

    def _after_tool(self, ctx: Any) -> Optional[str]:
        if not self._mine(ctx):
            return None
        tool_input = ctx.tool_input
        with self._lock:
            call = self._calls.pop(id(tool_input), None)
        if call is not None and call[0] is not tool_input:
            call = None
        use_id, refusal = (call[1], call[2]) if call is not None else (None, "")
        if refusal:
            return refusal  # what the model reads instead of CrewAI's "blocked by hook"
        name, result = str(ctx.tool_name), ctx.tool_result
        raw = ctx.raw_tool_result
        if isinstance(raw, str) and raw.startswith(_TOOL_ERROR) and raw == result:
            v = self.gate.tool_failed(name, dict(tool_input), raw[len(_TOOL_ERROR):], use_id)
            extra = v.additional_context
        else:
            v = self.gate.post_tool(name, dict(tool_input), result, use_id)
            extra = "\n\n".join(t for t in (v.reason if v.blocked else "", v.additional_context) if t)
        if v.stops:
            self._request_stop(v)
        return f"{result}\n\n{extra}" if extra else None

    # --- prompt, stop and the run ---------------------------------------------------------

    def _request_stop(self, v: Verdict) -> None:
        with self._lock:
            if self._stop is None:
                self._stop = v

    def _before_llm(self, ctx: Any) -> None:
        if not self._mine(ctx):
            return None
        stopped, blocked = _aborts()
        with self._lock:
            stop = self._stop
        if stop is not None:
            raise stopped(stop.stop_reason, stop)
        key = id(ctx.executor)
        with self._lock:
            first = key not in self._prompted
            self._prompted.add(key)
        if not first:
            return None
        messages = ctx.messages
        user = next((m for m in reversed(messages) if m.get("role") == "user" and isinstance(m.get("content"), str)), None)
        s = self.gate.session_start()
        v = self.gate.user_prompt(user["content"] if user is not None else "")
        if v.stops:
            self._request_stop(v)
            raise stopped(v.stop_reason, v)
        if v.blocked:
            raise blocked(v.feedback(), v)
        extra = "\n\n".join(t for t in (s.additional_context, v.additional_context) if t)
        if extra:
            if user is not None:
                user["content"] = f"{user['content']}\n\n{extra}"
            else:
                messages.append({"role": "user", "content": extra})
        return None

    def _guard_task(self, task: Any) -> None:
        if any(getattr(g, "_hookexec", None) is self for g in task._guardrails):
            return
        task._guardrails.append(self._stop_guardrail())

    def _stop_guardrail(self) -> Callable[[Any], Tuple[bool, Any]]:
        gate, active = self.gate, [False]

        def hookexec_stop(output: Any) -> Tuple[bool, Any]:
            v = gate.stop(str(getattr(output, "raw", output)), stop_hook_active=active[0])
            if v.stops:
                self._request_stop(v)
                raise _aborts()[0](v.stop_reason, v)
            if v.blocked:
                active[0] = True
                return False, v.feedback()
            return True, output

        hookexec_stop._hookexec = self  # type: ignore[attr-defined]
        return hookexec_stop

    # --- lifecycle ------------------------------------------------------------------------

    def reset(self) -> None:
        """Forgets a stop and the prompts seen: for a new run with the same hooks."""
        with self._lock:
            self._stop = None
            self._prompted.clear()
            self._calls.clear()

    def close(self) -> None:
        """Unregisters the hooks, fires SessionEnd (if a run started) and closes the gate
        this object opened; once."""
        if self._closed:
            return
        self._closed = True
        d = _require()
        for point, fn in self._registered:
            d.unregister(point, fn)
        self._registered.clear()
        if self._owned:
            self.gate.close()
        else:
            self.gate.session_end()

    def __enter__(self) -> "CrewAIHooks":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _hook_aborted(reason: str) -> Exception:
    e: Exception = _require().HookAborted(reason, source="hookexec")
    return e


def govern(target: Any, gate: Optional[Gate] = None, **gate_options: Any) -> Any:
    """Governs a CrewAI Crew or Agent (or a list) with the hooks of the current directory's
    ``.claude/settings.json`` (or ``gate``'s) and returns it. The :class:`CrewAIHooks` is
    ``hooks_of(target)``; it is closed when ``target`` is collected or the interpreter exits."""
    hooks = CrewAIHooks(gate, **gate_options)
    hooks.govern(target)
    _governors[id(target)] = hooks
    try:
        weakref.finalize(target, _release, id(target))
    except TypeError:  # a list: released at exit
        atexit.register(_release, id(target))
    return target


_governors: Dict[int, CrewAIHooks] = {}


def _release(key: int) -> None:
    hooks = _governors.pop(key, None)
    if hooks is not None:
        hooks.close()


def hooks_of(target: Any) -> CrewAIHooks:
    """The :class:`CrewAIHooks` :func:`govern` made for ``target`` (to ``close()`` it)."""
    try:
        return _governors[id(target)]
    except KeyError:
        raise LookupError("this CrewAI object was not governed by hookexec.integrations.crewai.govern") from None
