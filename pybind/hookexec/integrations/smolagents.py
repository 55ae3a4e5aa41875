"""hookexec for smolagents: one line governs a ``ToolCallingAgent`` or a ``CodeAgent``.

    from hookexec.integrations.smolagents import govern
    agent = govern(ToolCallingAgent(tools=[shell], model=model))

:func:`govern` wraps the agent's tools (every tool but ``final_answer``) in a
:class:`GovernedTool`, adds a final-answer check and a step callback, and wraps ``agent.run``:

- a tool call fires PreToolUse (a block or an unapproved ask: the tool does not run and the
  model reads the reason as the tool's observation; ``updated_input`` is the input the tool
  really runs with) and PostToolUse (``additional_context`` and a block's reason are appended
  to the observation), or PostToolUseFailure when the tool raises (the error still reaches the
  model as smolagents reports it);
- ``agent.run(task)`` fires SessionStart (once per gate) and UserPromptSubmit (a block raises
  :class:`PromptBlocked` before the model is called; ``additional_context`` of both is appended
  to the task);
- a final answer fires Stop (SubagentStop for a managed agent): a block refuses the answer
  through smolagents' ``final_answer_checks``, so the model reads the reason and goes on;
- ``continue: false`` from any hook ends the run: the step in progress ends and ``agent.run``
  raises :class:`~hookexec.integrations.RunStopped`.

In a ``CodeAgent`` the same wrapper governs every call the model's code makes to a tool; a
blocked call raises :class:`ToolBlocked` inside that code (so the code stops there) and the
reason is added to the step's observations. Code the model writes that calls no tool (Python
the local executor allows without a tool) is not seen by any hook.

smolagents is imported lazily: ``pip install 'hookexec[smolagents]'``.
"""

from __future__ import annotations

import functools
import importlib
import threading
import uuid
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._gate import Gate, RunStopped, Verdict

# A smolagents MultiStepAgent (smolagents is imported lazily, so not named to mypy).
_Agent = Any

__all__ = ["govern", "SmolagentsHooks", "GovernedTool", "ToolBlocked", "PromptBlocked"]

# The tool smolagents ends a run with: a Stop, not a tool call.
FINAL_ANSWER = "final_answer"


class ToolBlocked(Exception):
    """Raised inside a CodeAgent's code when a hook refused a tool call; its text is the reason."""


class PromptBlocked(RunStopped):
    """A UserPromptSubmit hook blocked the task: the model was not called. ``reason`` says why."""


def _require() -> Any:
    try:
        return importlib.import_module("smolagents")
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "hookexec.integrations.smolagents needs smolagents: pip install 'hookexec[smolagents]'"
        ) from e


class _Run:
    """What one governed agent's hooks decided during the step in progress: notes for the
    step's observations (CodeAgent), a requested stop, and whether a Stop hook blocked."""

    def __init__(self, raise_on_block: bool, subagent: bool) -> None:
        self.raise_on_block = raise_on_block
        self.subagent = subagent
        self.stop_active = False
        self._lock = threading.Lock()
        self._notes: List[str] = []
        self._stop: Optional[Verdict] = None

    def note(self, text: str) -> None:
        with self._lock:
            self._notes.append(text)

    def take_notes(self) -> List[str]:
        with self._lock:
            notes, self._notes = self._notes, []
        return notes

    def request_stop(self, v: Verdict) -> None:
        with self._lock:
            if self._stop is None:
                self._stop = v

    def take_stop(self) -> Optional[Verdict]:
        with self._lock:
            v, self._stop = self._stop, None
        return v

    def reset(self) -> None:
        self.stop_active = False
        self.take_notes()
        self.take_stop()


def _join(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


class SmolagentsHooks:
    """One gate governing smolagents agents. ``gate`` is a :class:`Gate` to use (not closed
    here); else one is opened with ``gate_options`` (``project_dir``, ``tool_names``,
    ``approve``, ``on_system_message``, ...) and closed by :meth:`close`."""

    def __init__(self, gate: Optional[Gate] = None, **gate_options: Any) -> None:
        if gate is not None and gate_options:
            raise TypeError("SmolagentsHooks(gate=...) takes no gate options: the gate is already made")
        self._owned = gate is None
        self._closed = False
        self.gate = gate if gate is not None else Gate(**gate_options)

    # --- tools ----------------------------------------------------------------------------

    def call(self, run: _Run, tool: Any, kwargs: Dict[str, Any], sanitize: bool) -> Any:
        """Runs ``tool(**kwargs)`` under PreToolUse/PostToolUse: the body of a governed tool."""
        gate, name = self.gate, str(tool.name)
        use_id = f"toolu_{uuid.uuid4().hex[:24]}"
        v = gate.settle_ask(gate.pre_tool(name, kwargs, use_id), name, kwargs)
        if v.stops:
            run.request_stop(v)
            return self._refuse(run, name, v.stop_reason or v.reason or "a hook stopped the run")
        if v.blocked:
            return self._refuse(run, name, v.feedback())
        if v.updated_input is not None:
            kwargs = dict(v.updated_input)
        try:
            out = tool(sanitize_inputs_outputs=sanitize, **kwargs)
        except Exception as e:
            f = gate.tool_failed(name, kwargs, f"{type(e).__name__}: {e}", use_id)
            if f.stops:
                run.request_stop(f)
            if f.additional_context:
                run.note(f"{name}: {f.additional_context}")
            raise
        p = gate.post_tool(name, kwargs, out if isinstance(out, (str, int, float, bool, list, dict)) else str(out), use_id)
        if p.stops:
            run.request_stop(p)
        extra = _join(p.reason if p.blocked else "", p.additional_context)
        if not extra:
            return out
        if run.raise_on_block:
            # The code gets the tool's real value; the model reads the hook's text with the
            # step's observations.
            run.note(f"{name}: {extra}")
            return out
        return _join(str(out).strip(), extra)

    def _refuse(self, run: _Run, name: str, reason: str) -> Any:
        if run.raise_on_block:
            run.note(f"{name} was not run: {reason}")
            raise ToolBlocked(reason)
        return reason

    def wrap_tool(self, tool: Any, *, code: bool = False, _run: Optional[_Run] = None) -> Any:
        """``tool`` wrapped so that its calls go through the hooks (already wrapped: as is).
        ``code``: a refused call raises :class:`ToolBlocked` (for a CodeAgent's code) instead
        of returning the reason as the tool's result."""
        if isinstance(tool, _governed_tool_class()):
            return tool
        return _governed_tool_class()(tool, self, _run or _Run(raise_on_block=code, subagent=False))

    # --- agents ---------------------------------------------------------------------------

    def govern(self, agent: "_Agent", *, _subagent: bool = False) -> "_Agent":
        """Governs ``agent`` (and its managed agents, whose final answers fire SubagentStop) in
        place and returns it."""
        sa = _require()
        if getattr(agent, "_hookexec_run", None) is not None:
            raise ValueError("this smolagents agent is already governed by hookexec")
        run = _Run(raise_on_block=isinstance(agent, sa.CodeAgent), subagent=_subagent)
        agent._hookexec_run = run
        for name, tool in list(agent.tools.items()):
            if name != FINAL_ANSWER:
                agent.tools[name] = self.wrap_tool(tool, _run=run)
        for sub in getattr(agent, "managed_agents", {}).values():
            self.govern(sub, _subagent=True)
        agent.final_answer_checks.append(self._stop_check(run))
        agent.step_callbacks.register(sa.memory.ActionStep, self._step_callback(run))
        if not _subagent:
            agent.run = self._run_wrapper(agent.run, run)
        return agent

    def _stop_check(self, run: _Run) -> Callable[..., bool]:
        gate = self.gate

        def hookexec_stop(final_answer: Any, memory: Any = None, agent: Any = None) -> bool:
            v = gate.stop(str(final_answer), stop_hook_active=run.stop_active, subagent=run.subagent)
            if v.stops:
                run.request_stop(v)
                raise RunStopped(v.stop_reason, v)
            if v.blocked:
                # smolagents refuses the answer with this text and the agent goes on.
                run.stop_active = True
                raise ToolBlocked(v.feedback())
            return True

        return hookexec_stop

    def _step_callback(self, run: _Run) -> Callable[..., None]:
        def hookexec_step(step: Any, agent: Any = None) -> None:
            notes = run.take_notes()
            if notes:
                text = "\n".join(f"hookexec: {n}" for n in notes)
                step.observations = _join(step.observations or "", text)
            v = run.take_stop()
            if v is not None:
                if agent is not None:
                    agent.interrupt()
                raise RunStopped(v.stop_reason, v)

        return hookexec_step

    def _run_wrapper(self, run_fn: Callable[..., Any], run: _Run) -> Callable[..., Any]:
        gate = self.gate

        @functools.wraps(run_fn)
        def run_governed(task: str, *args: Any, **kwargs: Any) -> Any:
            s = gate.session_start()
            v = gate.user_prompt(task)
            if v.stops:
                raise RunStopped(v.stop_reason, v)
            if v.blocked:
                raise PromptBlocked(v.feedback(), v)
            run.reset()
            return run_fn(_join(task, s.additional_context, v.additional_context), *args, **kwargs)

        return run_governed

    # --- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Fires SessionEnd (if a run started) and closes the gate this object opened; once."""
        if self._closed:
            return
        self._closed = True
        if self._owned:
            self.gate.close()
        else:
            self.gate.session_end()

    def __enter__(self) -> "SmolagentsHooks":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def govern(agent: "_Agent", gate: Optional[Gate] = None, **gate_options: Any) -> "_Agent":
    """Governs a smolagents agent with the hooks of the current directory's
    ``.claude/settings.json`` (or ``gate``'s) and returns it. ``agent.hookexec`` is the
    :class:`SmolagentsHooks`; its gate is closed (SessionEnd) by ``agent.hookexec.close()``,
    or when the agent is collected or the interpreter exits."""
    hooks = SmolagentsHooks(gate, **gate_options)
    hooks.govern(agent)
    agent.hookexec = hooks
    weakref.finalize(agent, hooks.close)
    return agent


@functools.lru_cache(maxsize=None)
def _governed_tool_class() -> Any:
    """GovernedTool is a smolagents ``Tool``: made once smolagents is imported."""
    sa = _require()

    class GovernedTool(sa.Tool):  # type: ignore[misc, name-defined]
        """A tool whose calls fire PreToolUse and PostToolUse; same name, inputs and output as
        the tool it wraps (``inner``)."""

        skip_forward_signature_validation = True

        def __init__(self, inner: Any, hooks: SmolagentsHooks, run: _Run) -> None:
            self.inner = inner
            self.name = inner.name
            self.description = inner.description
            self.inputs = inner.inputs
            self.output_type = inner.output_type
            self.output_schema = getattr(inner, "output_schema", None)
            self._hooks = hooks
            self._run = run
            super().__init__()
            self.is_initialized = True  # the inner tool sets itself up on its first call

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self(*args, **kwargs)

        def __call__(self, *args: Any, sanitize_inputs_outputs: bool = False, **kwargs: Any) -> Any:
            return self._hooks.call(self._run, self.inner, _named(self.inputs, args, kwargs), sanitize_inputs_outputs)

    return GovernedTool


def _named(inputs: Dict[str, Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """A call's arguments by name, as hooks see them: a lone dict of the tool's inputs (how
    smolagents may pass them) or positional arguments in the order of the tool's inputs."""
    if len(args) == 1 and not kwargs and isinstance(args[0], dict) and all(k in inputs for k in args[0]):
        return dict(args[0])
    if len(args) > len(inputs):
        raise TypeError(f"the tool takes {len(inputs)} arguments ({', '.join(inputs)}), got {len(args)}")
    return {**dict(zip(inputs, args)), **kwargs}


def __getattr__(name: str) -> Any:
    if name == "GovernedTool":
        return _governed_tool_class()
    raise AttributeError(name)
