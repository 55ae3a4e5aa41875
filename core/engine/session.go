package engine

import (
	"fmt"
	"sync"
)

// DefaultMaxStopBlocks is Claude Code's cap on consecutive blocked Stop fires in a session:
// past it, the hooks are overridden and the agent stops.
const DefaultMaxStopBlocks = 8

// sessions is the per-session state a fire reads and updates: which "once" hooks already
// ran, and how many Stop fires in a row were blocked. A session's state is dropped when
// its SessionEnd fires.
type sessions struct {
	mu         sync.Mutex
	ran        map[string]map[string]bool // session → ids of "once" hooks that ran
	stopBlocks map[string]int             // session → consecutive blocked Stop fires
}

// claimOnce reports whether hook id may run in session, and records that it did.
func (s *sessions) claimOnce(session, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ran[session][id] {
		return false
	}
	if s.ran == nil {
		s.ran = map[string]map[string]bool{}
	}
	if s.ran[session] == nil {
		s.ran[session] = map[string]bool{}
	}
	s.ran[session][id] = true
	return true
}

// stopFire counts a Stop fire of session that blocked or not, and reports whether the block
// must be overridden because it exceeds max consecutive blocks (max < 0: no cap). An
// overridden block ends the series.
func (s *sessions) stopFire(session string, blocked bool, max int) (override bool, warning string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !blocked {
		delete(s.stopBlocks, session)
		return false, ""
	}
	if s.stopBlocks == nil {
		s.stopBlocks = map[string]int{}
	}
	s.stopBlocks[session]++
	if max < 0 || s.stopBlocks[session] <= max {
		return false, ""
	}
	delete(s.stopBlocks, session)
	return true, fmt.Sprintf("Stop was blocked %d times in a row in session %q; past the cap of %d the block is overridden and the agent stops (max_stop_blocks)", max+1, session, max)
}

// end drops a session's state.
func (s *sessions) end(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ran, session)
	delete(s.stopBlocks, session)
}
