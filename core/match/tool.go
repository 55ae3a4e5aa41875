package match

import "strings"

// mcpPrefix starts the canonical spelling of an MCP tool, "mcp__<server>__<tool>".
const mcpPrefix = "mcp__"

// builtinServer is the pseudo-server of cli-agent's explicit built-in spelling, "builtin:<name>".
const builtinServer = "builtin"

// Tool is a tool's identity independent of how the host spells it.
//
// The zero value is a built-in tool with an empty name.
type Tool struct {
	// MCP reports whether the tool comes from an MCP server; false means built-in.
	MCP bool
	// Server is the MCP server's name; empty for built-in tools.
	Server string
	// Name is the bare tool name, without server or "builtin:" prefix.
	Name string
}

// ParseTool reads a tool name as a host spells it:
//
//	"mcp__github__create_issue" → {MCP: true, Server: "github", Name: "create_issue"}
//	"github:create_issue"       → the same (cli-agent's spelling)
//	"builtin:bash_execute"      → {Name: "bash_execute"}
//	"bash_execute"              → {Name: "bash_execute"}
//
// "mcp__" names split at the first "__" after the prefix, because server names cannot
// contain "__" while tool names may. A spelling with an empty server or tool part
// ("mcp__github__", ":x", "builtin:") is not a split form and is kept whole as a
// built-in name. ParseTool does not allocate: the parts are substrings of s.
func ParseTool(s string) Tool {
	if rest, ok := strings.CutPrefix(s, mcpPrefix); ok {
		if i := strings.Index(rest, "__"); i > 0 && i+2 < len(rest) {
			return Tool{MCP: true, Server: rest[:i], Name: rest[i+2:]}
		}
		return Tool{Name: s}
	}
	if server, name, ok := strings.Cut(s, ":"); ok && server != "" && name != "" {
		if server == builtinServer {
			return Tool{Name: name}
		}
		return Tool{MCP: true, Server: server, Name: name}
	}
	return Tool{Name: s}
}

// Canonical spells t the way the engine reports it: "mcp__<server>__<tool>" for MCP
// tools, the bare name for built-in ones.
func (t Tool) Canonical() string {
	if !t.MCP {
		return t.Name
	}
	return mcpPrefix + t.Server + "__" + t.Name
}

// spelledCanonically reports whether s, which parsed to t, already is t.Canonical(),
// so callers can skip building (and allocating) the canonical spelling.
func (t Tool) spelledCanonically(s string) bool {
	if t.MCP {
		return strings.HasPrefix(s, mcpPrefix)
	}
	return t.Name == s
}
