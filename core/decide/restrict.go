package decide

import "github.com/hookexec/hookexec/core/event"

// A hook that received a model-controlled value in its command line (a template placeholder)
// may have printed that value: `echo <<tool_input.description>>`, `jq . <<file_path>>` on a
// file the model wrote. Whether a value can reach stdout cannot be decided (it is any
// program's behaviour), so such a hook's answer is trusted only where trusting it is safe:
// it may restrict (deny, block, ask, defer, continue:false, exit 2, interrupt) and inform,
// never grant or rewrite. docs/hook-io.md, "A value never decides".

// RestrictRule names the rule in warnings and docs.
const RestrictRule = "a hook given a template value may only restrict"

// Restrict removes from v everything that grants or rewrites: an allow (with its reason),
// any replacement or merge of the tool input, permission updates, a replaced tool output, a
// PermissionDenied retry, text for the permission classifier, paths for the agent to watch
// (each change fires FileChanged hooks on a path the model chose), a message sent as the
// user's, and a WorktreeCreate path (without which the creation fails). It returns the names of the
// fields it removed, in a fixed order; nil when nothing was removed. What restricts or
// informs stays: deny and block, ask, defer, continue:false, interrupt, reasons, context and
// system messages (text the model sees labelled as a hook's, which it could have written
// itself and which decides nothing).
func (v *Verdict) Restrict(ev event.Info) []string {
	var dropped []string
	drop := func(name string, present bool) bool {
		if present {
			dropped = append(dropped, name)
		}
		return present
	}
	if drop("allow", v.Decision == Allow) {
		v.Decision, v.Reason = None, ""
	}
	if drop("updatedInput", v.UpdatedInput != nil) {
		v.UpdatedInput = nil
	}
	if drop("modified_args", v.ModifiedArgs != nil) {
		v.ModifiedArgs = nil
	}
	if drop("updatedPermissions", v.UpdatedPermissions != nil) {
		v.UpdatedPermissions = nil
	}
	if drop("updatedToolOutput", v.UpdatedToolOutput != nil) {
		v.UpdatedToolOutput = nil
	}
	if drop("retry", v.Retry) {
		v.Retry = false
	}
	if drop("classifierContext", v.ClassifierContext != nil) {
		v.ClassifierContext = nil
	}
	if drop("watchPaths", v.WatchPaths != nil) {
		v.WatchPaths = nil
	}
	if drop("initialUserMessage", v.InitialUserMessage != "") {
		v.InitialUserMessage = ""
	}
	if drop("worktreePath", v.WorktreePath != "") {
		v.WorktreePath = ""
		if !v.Blocked {
			// Read blocks a WorktreeCreate that names no path; without the path that holds.
			v.block(ev, "the worktree path came from a hook given a template value ("+RestrictRule+")")
		}
	}
	return dropped
}
