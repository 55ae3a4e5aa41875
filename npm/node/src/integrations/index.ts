// @hookexec/node/integrations: the gate every framework adapter shares (docs/frameworks.md).
// Each framework's adapter is its own subpath export (@hookexec/node/<framework>) and imports
// its framework lazily or only as types, so @hookexec/node needs none of them.
export { Gate, RunStopped, BLOCKING_EVENTS, blocked, feedback } from './gate';
export type { Verdict, VerdictDecision, Approver, GateOptions } from './gate';
export { DEFAULT_TOOL_NAMES } from './names';
