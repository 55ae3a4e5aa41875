// Package stats turns hookexec's logs into per-hook and per-event latency and decision
// statistics: which hook made the agent slow, which one denied, which one timed out.
//
// It reads the debug log (core/engine/log.go: one JSON line per fire) and the audit log
// (core/audit, through that package's reader) as streams, one line at a time, so a log of
// any size is read in constant memory apart from the durations it keeps: 8 bytes per hook
// run and per fire, which the exact percentiles need (see Percentile). A file's kind is
// found from its first readable line. A line that is not JSON, not a line of the file's
// kind, or longer than MaxLine is counted and reported in the file's FileReport, never
// fatal. It does not verify the audit log's hash chain: hookexec audit verify does.
//
// It does not run hooks, open an engine or write files: the CLI (hookexec stats) opens the
// files and writes the table, the JSON or the HTML page (WriteHTML).
package stats
