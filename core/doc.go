// Package core is the pure-Go hook engine behind libhookexec.
//
// Data flows one way through its packages:
//
//	config → match → template → run → decide → engine (result)
//
// event names the lifecycle events and their aliases, payload looks fields up in a
// fire's JSON without decoding it whole. Nothing in core knows about C; capi/ does.
package core
