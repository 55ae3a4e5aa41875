"""A drop-in for cli-agent's ``HookManager`` (``cli_agent.core.hooks.hook_manager``), run by
libhookexec.

cli-agent (PyPI ``mcp-cli-agent``) ships a pure-Python hook manager. This class has the same
public surface — ``await execute_hooks(hook_type, context)``, ``should_block_operation``,
``extract_modified_arguments``, ``get_hook_summary``, ``enable_hooks``/``disable_hooks``,
``match_hooks_for_tool`` — and returns result objects with the attributes cli-agent's callers
read, so cli-agent's tool engine, chat loop, event bus and ``/hooks`` command work unchanged.
Hooks then run the way the hookexec specification says: in parallel, with the payload on
stdin, every template value quoted for where it lands, whole process trees killed on timeout,
``""``/``builtin:*``/``mcp__*`` matchers working. The README section "cli-agent drop-in" lists
every behaviour that differs from cli-agent 1.2.6's own code, and why.

Switching cli-agent over takes two lines, after the agent is built (e.g. in its entry point)::

    from hookexec.cli_agent import HookManager
    HookManager().install(agent)       # agent.hook_manager, its tool engine's and event bus's

or, inside cli-agent, change the import in ``cli_agent/core/base_agent.py`` from
``cli_agent.core.hooks.hook_manager`` to ``hookexec.cli_agent``: the existing call
``HookManager(hook_config, self.event_bus)`` then loads the cli-agent profile and also runs
the hooks cli-agent's own loader found (duplicates run once). That path is only taken when
cli-agent's loader finds hooks; ``install`` always is.

What it does not do: it does not read cli-agent's ``HOOKS_ENABLED`` setting (the host decides
whether to install it), and it never raises for a failing hook — like cli-agent, a hook that
fails is a result, and a library error becomes one non-blocking error result.
"""

from __future__ import annotations

import asyncio
import enum
import importlib
import json
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from .config import Config
from .engine import Engine
from .errors import HookexecError, InvalidArgumentError
from .result import FireResult
from .result import HookResult as _LibHookResult

__all__ = ["HookManager", "HookResult", "HookResults", "HookType", "translate_context"]

logger = logging.getLogger(__name__)


class HookType(enum.Enum):
    """cli-agent's hook types (``cli_agent.core.hooks.hook_config.HookType``), for hosts that
    do not import cli-agent. Any Enum whose value is an event name, or the name itself, works
    as well: ``execute_hooks`` reads ``.value``."""

    PRE_TOOL_USE = "PreToolUse"
    POST_TOOL_USE = "PostToolUse"
    NOTIFICATION = "Notification"
    STOP = "Stop"


@dataclass
class HookResult:
    """What one hook did, with the attributes of cli-agent's ``HookResult``.

    ``decision`` is "block" for a hook that blocked, "ask" for one that asked, else "approve".
    ``should_continue`` is false when the hook blocked or its JSON said ``continue: false``.
    ``reason`` is why it blocked (or its JSON reason, or what went wrong), else None.
    ``json_output`` is its stdout parsed as a JSON object, else None (None too when the hook
    was given a ``{{…}}`` value and its allow or rewrite was dropped: docs/hook-io.md, "A value
    never decides"). The rest is hookexec's:
    ``blocks`` (the hook is one of those that made the fire blocked), ``hook_id``,
    ``command``, ``timed_out``, ``error`` and ``hook`` (the library's per-hook result).
    """

    success: bool
    exit_code: int
    stdout: str
    stderr: str
    execution_time: float
    json_output: Optional[Dict[str, Any]] = None
    should_continue: bool = True
    decision: str = "approve"
    reason: Optional[str] = None
    blocks: bool = False
    hook_id: str = ""
    command: str = ""
    timed_out: bool = False
    error: str = ""
    hook: Optional[_LibHookResult] = field(default=None, repr=False, compare=False)


class HookResults(List["HookResult"]):
    """The list ``execute_hooks`` returns (one :class:`HookResult` per hook that ran, in config
    order), carrying the aggregated fire result in ``fire`` (None when hooks are disabled or
    the library failed). ``blocked``, ``reason`` and ``updated_input`` are the fire's."""

    def __init__(self, items: Iterable[HookResult] = (), fire: Optional[FireResult] = None) -> None:
        super().__init__(items)
        self.fire = fire

    @property
    def blocked(self) -> bool:
        return bool(self.fire and self.fire.blocked)

    @property
    def reason(self) -> str:
        return self.fire.reason if self.fire else ""

    @property
    def updated_input(self) -> Optional[Dict[str, Any]]:
        return self.fire.updated_input if self.fire else None


def translate_context(event: str, context: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Maps a cli-agent hook context onto hookexec's canonical payload. cli-agent's own keys
    stay (``{{tool_args}}``, ``{{result}}`` and hooks reading them keep working); added:
    ``tool_input`` (= ``tool_args``), ``tool_response`` (= ``result``) and, for Notification,
    ``notification_type`` (= ``event_type``, the matcher subject). ``error``,
    ``execution_time``, ``timestamp``, ``session_id``, ``message``, ``conversation_length``
    and ``response_length`` pass through."""
    p = dict(context or {})
    if "tool_args" in p and "tool_input" not in p:
        p["tool_input"] = p["tool_args"]
    if "result" in p and "tool_response" not in p:
        p["tool_response"] = p["result"]
    if event == "Notification" and "event_type" in p and "notification_type" not in p:
        p["notification_type"] = p["event_type"]
    return p


def _event_name(hook_type: Any) -> str:
    name = hook_type.value if isinstance(hook_type, enum.Enum) else hook_type
    if not isinstance(name, str):
        raise TypeError(f"hook_type must be a HookType member or an event name, not {type(hook_type).__name__}")
    return name


class HookManager:
    """cli-agent's ``HookManager`` run by libhookexec (see the module doc for the switch-over).

    ``config`` is cli-agent's positional argument: a cli-agent ``HookConfig`` (its hooks are
    added, duplicates of the profile's files run once), a hookexec config dict or JSON text
    (highest precedence), or None. ``event_bus`` gets cli-agent's hook execution events.
    ``project_dir`` (default: the current directory) and ``home`` (default: $HOME) anchor the
    ``cli-agent`` profile's locations; ``sources`` replaces them; ``profile`` and the other
    keyword options (``session_id``, ``env``, ``default_timeout_ms``, ``kill_grace_ms``, ...)
    go to :class:`hookexec.Engine`. Close it (or use it as a context manager) to release the
    engine; ``install`` leaves closing to the host.
    """

    def __init__(
        self,
        config: Any = None,
        event_bus: Any = None,
        *,
        project_dir: Union[str, "os.PathLike[str]", None] = None,
        home: Union[str, "os.PathLike[str]", None] = None,
        sources: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
        profile: str = "cli-agent",
        **engine_options: Any,
    ) -> None:
        self.event_bus = event_bus
        self._hooks_enabled = True
        self._agent: Any = None
        self.replaced: Any = None  # the manager install() replaced
        self._engine: Optional[Engine] = None
        from_cli_agent = config is not None and not isinstance(config, (dict, str, bytes, bytearray))
        inline = _from_cli_agent_config(config) if from_cli_agent else config
        self._project_dir = os.fspath(project_dir) if project_dir is not None else os.getcwd()
        self._home = os.fspath(home) if home is not None else None
        self._profile = profile
        self._engine = Engine(
            profile=profile, project_dir=self._project_dir, home=home, sources=sources,
            config=inline, **engine_options,
        )
        self.warnings: List[str] = []  # hook files this manager does not read (also logged)
        self._look_for_unread = sources is None and not from_cli_agent
        try:
            self._check_sources()
        except BaseException:
            self.close()
            raise

    # --- cli-agent's surface ---------------------------------------------------------------

    async def execute_hooks(self, hook_type: Any, context: Dict[str, Any]) -> HookResults:
        """Runs the hooks of ``hook_type`` (a HookType member or event name) for ``context``
        (cli-agent's dict, see :func:`translate_context`); returns one result per hook that
        ran, in config order, with the aggregated decision in ``.fire``. Nothing when hooks
        are disabled."""
        event = _event_name(hook_type)
        if not self._hooks_enabled:
            logger.debug("hooks disabled, skipping %s hooks", event)
            return HookResults()
        payload = translate_context(event, context)
        tool = payload.get("tool_name")
        if isinstance(tool, str) and tool:
            payload["tool_name"] = self.qualify_tool_name(tool)
        try:
            try:
                fire = await self.engine.fire_async(event, payload)
            except InvalidArgumentError:
                # cli-agent accepts any context (it only str()s what it substitutes).
                fire = await self.engine.fire_async(event, _jsonable(payload))
        except HookexecError as e:
            logger.error("hookexec failed to run %s hooks: %s", event, e)
            return HookResults([HookResult(False, -1, "", f"Hook manager error: {e}", 0.0, error=str(e))])
        for w in fire.warnings:
            logger.warning("%s hooks: %s", event, w)
        results = HookResults(_results(fire), fire)
        if fire.hooks:
            logger.info("ran %d %s hook(s) for %s: blocked=%s", len(results), event, tool or "*", fire.blocked)
        await self._emit(event, context, results)
        return results

    def should_block_operation(self, results: Sequence[Any]) -> Tuple[bool, str]:
        """(blocked, reason). For the list ``execute_hooks`` returned this is the fire's own
        verdict; for other lists, hooks that blocked (``blocks``, or cli-agent's
        ``should_continue`` false) with their reasons joined by "; "."""
        fire = getattr(results, "fire", None)
        if fire is not None:
            return (True, fire.reason or "Hook requested operation be blocked") if fire.blocked else (False, "")
        reasons = [
            r.reason or "Hook requested operation be blocked"
            for r in results
            if getattr(r, "blocks", not getattr(r, "should_continue", True))
        ]
        return (True, "; ".join(reasons)) if reasons else (False, "")

    def extract_modified_arguments(self, results: Sequence[Any]) -> Optional[Dict[str, Any]]:
        """The tool arguments after every hook's ``modified_args`` (merged in config order)
        and ``hookSpecificOutput.updatedInput`` — the complete input, so cli-agent's
        ``arguments.update(...)`` yields it — or None when no hook changed them. For lists not
        from ``execute_hooks``: every ``modified_args`` merged in order."""
        fire = getattr(results, "fire", None)
        if fire is not None:
            return dict(fire.updated_input) if isinstance(fire.updated_input, dict) else None
        merged: Dict[str, Any] = {}
        for r in results:
            m = (getattr(r, "json_output", None) or {}).get("modified_args")
            if isinstance(m, dict):
                merged.update(m)
        return merged or None

    def get_hook_summary(self) -> Dict[str, Any]:
        """{enabled, hook_types: {event: {matchers, hooks}}, total_hooks} over the hooks that
        would run (disabled and duplicate ones left out; ``matchers`` counts distinct
        matchers), plus hookexec's ``sources`` (files loaded) and ``warnings``."""
        cfg = self.engine.config()
        types: Dict[str, Dict[str, Any]] = {}
        matchers: Dict[str, Set[str]] = {}
        for h in cfg.get("hooks") or ():
            if not h.get("enabled"):
                continue
            ev = h.get("event") or ""
            t = types.setdefault(ev, {"matchers": 0, "hooks": 0})
            t["hooks"] += 1
            matchers.setdefault(ev, set()).add(h.get("matcher") or "")
            t["matchers"] = len(matchers[ev])
        return {
            "enabled": self._hooks_enabled and not cfg.get("disable_all"),
            "hook_types": types,
            "total_hooks": sum(t["hooks"] for t in types.values()),
            "sources": [s["path"] for s in cfg.get("sources") or () if s.get("status") == "loaded"],
            "warnings": [w.get("message", "") for w in cfg.get("warnings") or ()] + list(self.warnings),
        }

    def match_hooks_for_tool(self, hook_type: Any, tool_name: str) -> List[str]:
        """The commands of the hooks that would run for ``tool_name`` (for debugging), in
        config order, decided by the library's own matchers."""
        event = _event_name(hook_type)
        subject = self.qualify_tool_name(tool_name) if tool_name else ""
        eng = self.engine
        ids = eng.match_ids(event, subject)
        if not ids:
            return []
        by_id = {h.get("id"): h for h in eng.config().get("hooks") or () if h.get("enabled")}
        return [h.get("command") or " ".join(h.get("args") or ()) for h in (by_id[i] for i in ids if i in by_id)]

    def disable_hooks(self) -> None:
        """Temporarily disable all hook execution (``execute_hooks`` returns [])."""
        self._hooks_enabled = False
        logger.info("Hooks disabled")

    def enable_hooks(self) -> None:
        """Re-enable hook execution."""
        self._hooks_enabled = True
        logger.info("Hooks enabled")

    # --- hookexec's additions --------------------------------------------------------------

    @property
    def hooks_enabled(self) -> bool:
        return self._hooks_enabled

    @property
    def engine(self) -> Engine:
        """The :class:`hookexec.Engine` underneath (ClosedError once closed)."""
        if self._engine is None:
            raise HookexecError("hookexec: HookManager is not open")
        return self._engine

    @property
    def config(self) -> Config:
        """The configuration in force (``Engine.config()``)."""
        return self.engine.config()

    def install(self, agent: Any) -> "HookManager":
        """Makes this manager the hook manager of a cli-agent agent: ``agent.hook_manager``,
        ``agent.tool_execution_engine.hook_manager`` when there is a tool engine, and
        ``agent.event_bus.set_hook_manager(self)`` when the bus has it (the bus then also gets
        the hook execution events). The agent's ``available_tools`` then tell MCP tools from
        built-in ones (see :meth:`qualify_tool_name`). The replaced manager is kept in
        ``replaced``. Returns self."""
        self.replaced = getattr(agent, "hook_manager", None)
        agent.hook_manager = self
        engine = getattr(agent, "tool_execution_engine", None)
        if engine is not None:
            engine.hook_manager = self
        bus = getattr(agent, "event_bus", None)
        if bus is not None and callable(getattr(bus, "set_hook_manager", None)):
            bus.set_hook_manager(self)
            if self.event_bus is None:
                self.event_bus = bus
        self._agent = agent
        return self

    def qualify_tool_name(self, tool_name: str) -> str:
        """cli-agent hands hooks the bare tool name ("create_issue"), also for MCP tools. With
        an installed agent, a bare name that its ``available_tools`` registry knows only as
        one MCP server's tool becomes cli-agent's key "<server>:<tool>", so ``mcp__*``
        matchers see it and ``builtin:*`` does not; other names are returned as they are."""
        if self._agent is None or ":" in tool_name or tool_name.startswith("mcp__"):
            return tool_name
        tools = getattr(self._agent, "available_tools", None)
        if not isinstance(tools, dict):
            return tool_name
        servers = set()
        for key, info in tools.items():
            name = info.get("name") if isinstance(info, dict) else None
            if name == tool_name:
                servers.add(info.get("server") or str(key).partition(":")[0])
        if len(servers) == 1:
            server = servers.pop()
            if server and server != "builtin":
                return f"{server}:{tool_name}"
        return tool_name

    def reload(self) -> None:
        """Re-reads the configuration (the old one stays if that fails)."""
        self.engine.reload()
        self._check_sources()

    def close(self) -> None:
        """Closes the engine (waiting for running async hooks up to its close timeout)."""
        if self._engine is not None:
            self._engine.close()

    def __enter__(self) -> "HookManager":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "enabled" if self._hooks_enabled else "disabled"
        return f"<hookexec.cli_agent.HookManager {state} project={self._project_dir!r}>"

    # --- internals -------------------------------------------------------------------------

    def _check_sources(self) -> None:
        """Config warnings go to the log, and so do cli-agent hook files the profile does not
        read, so that a switch-over never loses hooks silently."""
        cfg = self.engine.config()
        for w in cfg.get("warnings") or ():
            logger.warning("hook configuration: %s: %s", w.get("source") or "", w.get("message"))
        out: List[str] = []
        if self._look_for_unread:
            home = Path(self._home or os.path.expanduser("~"))
            local = home / ".config" / "agent" / "settings.local.json"
            if local.is_file():
                out.append(f"{local}: read by cli-agent 1.2.6 but not by the cli-agent profile; move its hooks "
                           "to <project>/.config/agent/settings.local.json or ~/.config/agent/settings.json")
            hooks_dir = home / ".config" / "agent" / "hooks"
            for s in cfg.get("sources") or ():
                p = s.get("path") or ""
                if s.get("status") == "loaded" and not s.get("hooks") and os.path.dirname(p) == str(hooks_dir):
                    out.append(f"{p}: no \"hooks\" object, so no hooks loaded (cli-agent's single-hook file "
                               "format is not read; wrap it as {\"hooks\": {\"<Event>\": [...]}})")
            if hooks_dir.is_dir():
                for p in sorted(hooks_dir.glob("*.y*ml")):
                    out.append(f"{p}: YAML hook files are not read; convert it to JSON")
        self.warnings = out
        for w in out:
            logger.warning("hook configuration: %s", w)

    async def _emit(self, event: str, context: Dict[str, Any], results: List[HookResult]) -> None:
        """cli-agent's hook execution events (start and complete, per hook that ran), when the
        manager has an event bus and cli-agent's event classes are loaded. Hooks of one fire
        run together, so both are sent after the fire."""
        bus = self.event_bus
        if bus is None or not results or "cli_agent" not in sys.modules:
            return
        try:
            ev = importlib.import_module("cli_agent.core.hooks.hook_events")
            for r in results:
                start = ev.HookExecutionStartEvent(hook_type=event, hook_command=r.command, context=context)
                start.data["hook_name"] = r.hook_id
                await _maybe_await(bus.emit(start))
                await _maybe_await(bus.emit(ev.HookExecutionCompleteEvent(hook_type=event, hook_command=r.command, result=r)))
        except Exception as e:  # noqa: BLE001 — display events must never break a tool call
            logger.debug("could not emit hook events: %s", e)


async def _maybe_await(x: Any) -> None:
    if asyncio.iscoroutine(x) or isinstance(x, asyncio.Future):
        await x


def _results(fire: FireResult) -> List[HookResult]:
    # A hook's decision is "deny" exactly when it blocked (core/decide): fire.blocked is their OR.
    blockers = sum(1 for h in fire.hooks if h.decision == "deny") if fire.blocked else 0
    out = []
    for h in fire.hooks:
        doc = h.output if isinstance(h.output, dict) else None
        blocks = blockers > 0 and h.decision == "deny"
        if blocks:
            # One blocker: the fire's reason is exactly its reason.
            reason: Optional[str] = fire.reason if blockers == 1 else _reason(h, doc, True)
        else:
            reason = _reason(h, doc, False) or None
        cont = not blocks and not (doc is not None and doc.get("continue") is False)
        if doc is None and _json_line(h.stdout):
            # cli-agent 1.2.6 read a JSON line anywhere in stdout; hookexec reads stdout as JSON
            # only when it starts with '{'. Say so rather than let a guard fail open quietly.
            logger.warning("hook %s printed a JSON line after other output; it is read as text, not as a "
                           "decision (print only the JSON object, or exit 2 to block)", h.id)
        out.append(HookResult(
            success=(h.exit_code in (0, 2)) or (h.async_ and not h.error),
            exit_code=h.exit_code,
            stdout=h.stdout,
            stderr=h.stderr,
            execution_time=h.duration_ms / 1000.0,
            json_output=doc,
            should_continue=cont,
            decision="block" if blocks else {"ask": "ask"}.get(h.decision, "approve"),
            reason=reason,
            blocks=blocks,
            hook_id=h.id,
            command=h.command,
            timed_out=h.timed_out,
            error=h.error,
            hook=h,
        ))
    return out


def _json_line(stdout: str) -> bool:
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            return True
    return False


def _reason(h: _LibHookResult, doc: Optional[Dict[str, Any]], blocked: bool) -> str:
    """One hook's reason, read as the library reads it (SPEC §7)."""
    r = ""
    if doc is not None:
        def s(d: Any, k: str) -> str:
            v = d.get(k) if isinstance(d, dict) else None
            return v if isinstance(v, str) else ""

        r = s(doc, "reason") or s(doc, "permissionDecisionReason")
        r = s(doc.get("hookSpecificOutput"), "permissionDecisionReason") or r or s(doc, "feedback")
        if not r and doc.get("continue") is False:
            r = s(doc, "stopReason")
    if not r and h.exit_code == 2:
        r = h.stderr.strip() or "blocked by hook (exit status 2)"
    if not r and h.error:
        r = ("hook failed and fail_closed is set: " + h.error) if blocked else h.error
    return r


def _jsonable(x: Any) -> Any:
    return json.loads(json.dumps(x, default=str, skipkeys=True))


def _from_cli_agent_config(config: Any) -> Dict[str, Any]:
    """A cli-agent ``HookConfig`` (hooks: {HookType: [HookMatcher]}) as a hookexec config."""
    hooks = getattr(config, "hooks", None)
    if not isinstance(hooks, dict):
        raise TypeError(
            "config must be a cli-agent HookConfig, a hookexec config dict or JSON text, "
            f"not {type(config).__name__}"
        )
    doc: Dict[str, List[Dict[str, Any]]] = {}
    for hook_type, matchers in hooks.items():
        groups = doc.setdefault(_event_name(hook_type), [])
        for m in matchers or ():
            handlers = []
            for d in getattr(m, "hooks", None) or ():
                h: Dict[str, Any] = {"type": getattr(d, "type", "command") or "command", "command": d.command}
                for key in ("timeout", "working_directory", "env", "name"):
                    v = getattr(d, key, None)
                    if v is not None:
                        h[key] = v
                handlers.append(h)
            groups.append({"matcher": getattr(m, "matcher", "") or "", "hooks": handlers})
    return {"hooks": doc}
