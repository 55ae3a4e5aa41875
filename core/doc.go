// Package core is the pure-Go hook engine behind libhookexec.
//
// Data flows one way through its packages:
//
//	config → match → template → run → decide → engine (result)
//
// dialect, under config, is the one home of each configuration format (one file per
// dialect): config asks it to recognise and read a file, the engine asks it how the
// format's hooks see an event.
// event names the lifecycle events and their aliases, payload looks fields up in a
// fire's JSON without decoding it whole. Nothing in core knows about C; capi/ does.
package core
